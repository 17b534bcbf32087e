# posix_spawn for the tool runner (src/processors/shared/spawn-process.ts loads it): a child started without
# copying this process's page tables. Built by scripts/setup.sh with node-gyp against Node 24's headers.
{
  "targets": [
    {
      "target_name": "spawn",
      "sources": ["src/spawn.c"],
      "cflags": ["-std=gnu11", "-O2", "-Wall", "-Wextra"],
      "defines": ["NAPI_VERSION=8"]
    }
  ]
}
