{
  "targets": [
    {
      "target_name": "<!(node ../../scripts/mpi-flags.mjs name)",
      "sources": ["coll-mpi.c"],
      "cflags": ["<!@(node ../../scripts/mpi-flags.mjs cflags)"],
      "libraries": ["<!@(node ../../scripts/mpi-flags.mjs libs)"]
    }
  ]
}
