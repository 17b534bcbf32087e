# Native SSIMULACRA 2 (src/processors/shared/metric/ssimulacra2-native.ts loads it). Built by
# scripts/setup.sh with node-gyp against Node 24's headers. -ffp-contract=off: no fused multiply-adds the
# TypeScript reference does not do (the scores must be bit-identical); never -ffast-math.
{
  "targets": [
    {
      "target_name": "ssimulacra2",
      "sources": ["src/addon.cc", "src/metric.cc", "src/recursive_gaussian.cc"],
      "cflags_cc!": ["-std=gnu++17", "-std=gnu++20"],
      "cflags_cc": ["-std=c++17", "-O3", "-ffp-contract=off", "-fno-fast-math"],
      "defines": ["NAPI_VERSION=8"]
    }
  ]
}
