/* The MPI side of `coll bench --compare`: times one MPI collective exactly as
 * src/bench/bench-program.ts times ours (OSU-style): for each message size, warm-up
 * calls (a tenth of the iterations, plus one), a barrier, then back-to-back calls;
 * each rank's mean time per call is gathered at rank 0 and reported as min / avg /
 * max over ranks, one JSON object per line.
 *
 * Usage: mpi_coll_bench COLLECTIVE MIN_BYTES MAX_BYTES ITERS_SMALL [DATATYPE] [OP]
 *   COLLECTIVE: barrier bcast reduce allreduce allgather reduce_scatter gather scatter alltoall scan exscan
 *   DATATYPE:   float64 (default) float32 int32 int64 uint8    OP: sum (default) max min prod
 * Bytes are count x element size: the vector for bcast/reduce/allreduce, one rank's
 * block for the others (MPI_Reduce_scatter_block for reduce_scatter); sizes double
 * from MIN to MAX, or MIN_BYTES is a comma-separated list of sizes (MAX_BYTES ignored). Iterations: ITERS_SMALL up to 16 KiB, ITERS_SMALL/20 (at least 20)
 * up to 1 MiB, 20 above. Root 0. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int iterations_for(size_t bytes, int small) {
  if (bytes <= 16384) return small;
  if (bytes <= 1048576) return small / 20 > 20 ? small / 20 : 20;
  return 20;
}

static MPI_Datatype type_of(const char *name, size_t *size) {
  if (!strcmp(name, "float64")) { *size = 8; return MPI_DOUBLE; }
  if (!strcmp(name, "float32")) { *size = 4; return MPI_FLOAT; }
  if (!strcmp(name, "int32")) { *size = 4; return MPI_INT32_T; }
  if (!strcmp(name, "int64")) { *size = 8; return MPI_INT64_T; }
  if (!strcmp(name, "uint8")) { *size = 1; return MPI_UINT8_T; }
  fprintf(stderr, "mpi_coll_bench: unknown datatype %s\n", name);
  exit(2);
}

static MPI_Op op_of(const char *name) {
  if (!strcmp(name, "sum")) return MPI_SUM;
  if (!strcmp(name, "max")) return MPI_MAX;
  if (!strcmp(name, "min")) return MPI_MIN;
  if (!strcmp(name, "prod")) return MPI_PROD;
  fprintf(stderr, "mpi_coll_bench: unknown op %s\n", name);
  exit(2);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 5) {
    if (rank == 0) fprintf(stderr, "usage: mpi_coll_bench COLLECTIVE MIN_BYTES MAX_BYTES ITERS_SMALL [DATATYPE] [OP]\n");
    MPI_Finalize();
    return 2;
  }
  const char *coll = argv[1];
  size_t sizes[64], nsizes = 0;
  if (strchr(argv[2], ',')) {
    for (char *p = argv[2]; *p && nsizes < 64;) {
      sizes[nsizes++] = strtoull(p, &p, 10);
      if (*p == ',') p++;
    }
  } else {
    size_t hi = strtoull(argv[3], 0, 10);
    for (size_t b = strtoull(argv[2], 0, 10); nsizes < 64; b *= 2) {
      sizes[nsizes++] = b;
      if (b == 0 || b >= hi) break;
    }
  }
  int small = atoi(argv[4]);
  const char *tname = argc > 5 ? argv[5] : "float64";
  size_t es;
  MPI_Datatype t = type_of(tname, &es);
  MPI_Op op = op_of(argc > 6 ? argv[6] : "sum");
  int barrier = !strcmp(coll, "barrier");
  int blocks = !strcmp(coll, "allgather") || !strcmp(coll, "reduce_scatter") || !strcmp(coll, "gather") || !strcmp(coll, "scatter") || !strcmp(coll, "alltoall");
  if (barrier) sizes[0] = 0, nsizes = 1;
  for (size_t k = 0; k < nsizes; k++) {
    size_t bytes = sizes[k];
    int n = barrier ? 0 : (int)(bytes / es > 0 ? bytes / es : 1);
    size_t big = (size_t)n * (blocks ? (size_t)size : 1) + 1;
    unsigned char *a = malloc(big * es), *b = malloc(big * es);
    memset(a, 1, big * es);
    memset(b, 0, big * es);
    int iters = iterations_for(bytes, small), warm = iters / 10 + 1;
    double t0 = 0;
    for (int i = -warm; i < iters; i++) {
      if (i == 0) { MPI_Barrier(MPI_COMM_WORLD); t0 = MPI_Wtime(); }
      if (barrier) MPI_Barrier(MPI_COMM_WORLD);
      else if (!strcmp(coll, "bcast")) MPI_Bcast(a, n, t, 0, MPI_COMM_WORLD);
      else if (!strcmp(coll, "reduce")) MPI_Reduce(a, b, n, t, op, 0, MPI_COMM_WORLD);
      else if (!strcmp(coll, "allreduce")) MPI_Allreduce(a, b, n, t, op, MPI_COMM_WORLD);
      else if (!strcmp(coll, "allgather")) MPI_Allgather(a, n, t, b, n, t, MPI_COMM_WORLD);
      else if (!strcmp(coll, "reduce_scatter")) MPI_Reduce_scatter_block(a, b, n, t, op, MPI_COMM_WORLD);
      else if (!strcmp(coll, "gather")) MPI_Gather(a, n, t, b, n, t, 0, MPI_COMM_WORLD);
      else if (!strcmp(coll, "scatter")) MPI_Scatter(a, n, t, b, n, t, 0, MPI_COMM_WORLD);
      else if (!strcmp(coll, "alltoall")) MPI_Alltoall(a, n, t, b, n, t, MPI_COMM_WORLD);
      else if (!strcmp(coll, "scan")) MPI_Scan(a, b, n, t, op, MPI_COMM_WORLD);
      else if (!strcmp(coll, "exscan")) MPI_Exscan(a, b, n, t, op, MPI_COMM_WORLD);
      else { if (rank == 0) fprintf(stderr, "mpi_coll_bench: unknown collective %s\n", coll); MPI_Abort(MPI_COMM_WORLD, 2); }
    }
    double us = (MPI_Wtime() - t0) * 1e6 / iters;
    double *all = rank == 0 ? malloc(sizeof(double) * (size_t)size) : NULL;
    MPI_Gather(&us, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      double mn = all[0], mx = all[0], sum = 0;
      for (int r = 0; r < size; r++) { if (all[r] < mn) mn = all[r]; if (all[r] > mx) mx = all[r]; sum += all[r]; }
      printf("{\"collective\":\"%s\",\"ranks\":%d,\"bytes\":%zu,\"iterations\":%d,\"min_us\":%.3f,\"avg_us\":%.3f,\"max_us\":%.3f}\n",
             coll, size, (size_t)n * es, iters, mn, sum / size, mx);
      fflush(stdout);
      free(all);
    }
    free(a);
    free(b);
  }
  MPI_Finalize();
  return 0;
}
