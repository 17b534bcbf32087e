# Native SSIMULACRA 2 (src/processors/shared/metric/ssimulacra2-native.ts loads it). Built by
# scripts/setup.sh with node-gyp against Node 24's headers. Float32 vector lanes through GCC's vector
# extensions (src/simd.h); -ffp-contract=off: no fused multiply-adds, so every lane is the same IEEE
# operations on every machine; never -ffast-math. x86-64 builds target the baseline (SSE2) whatever the
# compiler's default, so every x86-64 machine runs the same instructions.
{
  "targets": [
    {
      "target_name": "ssimulacra2",
      "sources": ["src/addon.cc", "src/reference_binding.cc", "src/metric.cc", "src/reference.cc", "src/recursive_gaussian.cc"],
      "cflags_cc!": ["-std=gnu++17", "-std=gnu++20"],
      "cflags_cc": ["-std=c++17", "-O3", "-ffp-contract=off", "-fno-fast-math"],
      "conditions": [["target_arch=='x64'", {"cflags_cc": ["-march=x86-64", "-mtune=generic"]}]],
      "defines": ["NAPI_VERSION=8"]
    }
  ]
}
