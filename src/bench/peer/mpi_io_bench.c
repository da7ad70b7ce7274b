/* The MPI-IO side of the parallel I/O benchmarks: writes and reads one shared file
 * with the system MPI's MPI-IO (ROMIO or OMPIO), IOR-style. Each repetition opens
 * the file collectively (CREATE|RDWR) and then
 *   barrier, t0, write, t_w, MPI_File_sync, t_ws, barrier        (write phase)
 *   MPI_File_sync (untimed; the sync-barrier-sync of MPI's consistency rules)
 *   barrier, t2, read, t_r, barrier                              (read phase)
 * closes it, checks the bytes read against the bytes written, and rank 0 deletes the
 * file. Phase times are each rank's t_w - t0 (write_s), t_ws - t0 (write_sync_s) and
 * t_r - t2 (read_s), reduced with MAX at rank 0: the slowest rank is the phase, and
 * the aggregate bandwidth is P * BYTES_PER_RANK / that time (MB = 1e6 bytes). The
 * write is timed without the sync (it may only reach the page cache) and with it.
 * On one node the read comes back from the page cache, whatever the file system.
 *
 * Usage: mpi_io_bench PATTERN BYTES_PER_RANK REPS PATH COLLECTIVE [ELEM_BYTES]
 *   PATTERN:    contiguous  rank r's block is at file offset r * BYTES_PER_RANK
 *               tile        MPI-Tile-IO: ranks in a px x py grid (px the largest
 *                           divisor of P <= sqrt(P)), each owning tr x tc elements of
 *                           ELEM_BYTES (default 32) bytes of the row-major global array
 *                           of py*tr rows x px*tc elements; tc = 256 elements unless a
 *                           rank has fewer, tr = BYTES_PER_RANK / (ELEM_BYTES * tc).
 *                           A subarray file view; the access is at offset 0.
 *   COLLECTIVE: 1 = MPI_File_write_at_all / read_at_all, 0 = write_at / read_at.
 *   PATH:       the file, created and deleted on every repetition.
 * Prints one JSON object per repetition on rank 0; a verification or MPI-IO error
 * prints {"error":...} and exits nonzero. */
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static void fail(const char *what, int code) {
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, msg, &len);
  for (int i = 0; i < len; i++) if (msg[i] == '"' || msg[i] == '\\' || msg[i] == '\n') msg[i] = ' ';
  printf("{\"error\":\"mpi-io\",\"rank\":%d,\"call\":\"%s\",\"message\":\"%.*s\"}\n", rank, what, len, msg);
  fflush(stdout);
  fprintf(stderr, "mpi_io_bench: rank %d: %s failed: %.*s\n", rank, what, len, msg);
  MPI_Abort(MPI_COMM_WORLD, 3);
}

#define CHECK(call, what) do { int rc_ = (call); if (rc_ != MPI_SUCCESS) fail(what, rc_); } while (0)

/* The byte at index i of rank r's data in repetition k: differs between ranks,
 * repetitions and positions, so a block in the wrong place does not compare equal. */
static unsigned char pattern_byte(int r, int k, size_t i) {
  uint64_t x = ((uint64_t)(r + 1) << 48) ^ ((uint64_t)k << 40) ^ (uint64_t)(i >> 3);
  x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL; x ^= x >> 33;
  return (unsigned char)(x >> ((i & 7) * 8));
}

static int usage(const char *why) {
  if (rank == 0) {
    fprintf(stderr, "mpi_io_bench: %s\n", why);
    fprintf(stderr, "usage: mpi_io_bench contiguous|tile BYTES_PER_RANK REPS PATH 0|1 [ELEM_BYTES]\n");
  }
  MPI_Finalize();
  return 2;
}

static int whole(const char *s, long long *v) {
  char *end;
  *v = strtoll(s, &end, 10);
  return *s && !*end;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 6) return usage("too few arguments");
  const char *pattern = argv[1], *path = argv[4];
  int tile = !strcmp(pattern, "tile");
  if (!tile && strcmp(pattern, "contiguous")) return usage("PATTERN must be contiguous or tile");
  long long bytes, reps, coll, elem = 32;
  if (!whole(argv[2], &bytes) || bytes < 1 || bytes > INT_MAX) return usage("BYTES_PER_RANK must be an integer from 1 to 2^31-1");
  if (!whole(argv[3], &reps) || reps < 1) return usage("REPS must be a positive integer");
  if (!whole(argv[5], &coll) || (coll != 0 && coll != 1)) return usage("COLLECTIVE must be 0 or 1");
  if (argc > 6 && (!whole(argv[6], &elem) || elem < 1)) return usage("ELEM_BYTES must be a positive integer");

  MPI_Datatype filetype = MPI_DATATYPE_NULL;
  if (tile) {
    int px = 1;
    for (int d = 1; (long long)d * d <= size; d++) if (size % d == 0) px = d;
    int py = size / px;
    if (bytes % elem) return usage("tile: BYTES_PER_RANK must be a multiple of ELEM_BYTES");
    long long elems = bytes / elem, tc = elems < 256 ? elems : 256;
    if (elems % tc) return usage("tile: BYTES_PER_RANK must be a multiple of ELEM_BYTES * 256 (the tile's row)");
    long long tr = elems / tc;
    if ((long long)py * tr > INT_MAX || (long long)px * tc * elem > INT_MAX) return usage("tile: the global array is too large for int sizes");
    int sizes[2] = {(int)(py * tr), (int)(px * tc * elem)};
    int subsizes[2] = {(int)tr, (int)(tc * elem)};
    int starts[2] = {(int)((rank / px) * tr), (int)((rank % px) * tc * elem)};
    MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_BYTE, &filetype);
    MPI_Type_commit(&filetype);
  }

  size_t n = (size_t)bytes;
  unsigned char *out = malloc(n), *in = malloc(n);
  if (!out || !in) {
    fprintf(stderr, "mpi_io_bench: rank %d: cannot allocate 2 x %zu bytes\n", rank, n);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Offset offset = tile ? 0 : (MPI_Offset)rank * (MPI_Offset)bytes;
  int bad = 0;
  for (int k = 0; k < reps && !bad; k++) {
    for (size_t i = 0; i < n; i++) out[i] = pattern_byte(rank, k, i);
    memset(in, 0, n);
    MPI_File fh;
    MPI_Status st;
    int count;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh), "MPI_File_open");
    if (tile) CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, filetype, "native", MPI_INFO_NULL), "MPI_File_set_view");

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (coll) CHECK(MPI_File_write_at_all(fh, offset, out, (int)bytes, MPI_BYTE, &st), "MPI_File_write_at_all");
    else CHECK(MPI_File_write_at(fh, offset, out, (int)bytes, MPI_BYTE, &st), "MPI_File_write_at");
    double t_w = MPI_Wtime();
    CHECK(MPI_File_sync(fh), "MPI_File_sync");
    double t_ws = MPI_Wtime();
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Get_count(&st, MPI_BYTE, &count);
    if (count != (int)bytes) {
      printf("{\"error\":\"short-write\",\"rank\":%d,\"rep\":%d,\"bytes\":%lld,\"written\":%d}\n", rank, k, bytes, count);
      bad = 1;
    }

    CHECK(MPI_File_sync(fh), "MPI_File_sync");
    MPI_Barrier(MPI_COMM_WORLD);
    double t2 = MPI_Wtime();
    if (coll) CHECK(MPI_File_read_at_all(fh, offset, in, (int)bytes, MPI_BYTE, &st), "MPI_File_read_at_all");
    else CHECK(MPI_File_read_at(fh, offset, in, (int)bytes, MPI_BYTE, &st), "MPI_File_read_at");
    double t_r = MPI_Wtime();
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_File_close(&fh), "MPI_File_close");
    if (rank == 0) CHECK(MPI_File_delete(path, MPI_INFO_NULL), "MPI_File_delete");
    MPI_Barrier(MPI_COMM_WORLD); /* the next repetition's open must not meet the old file */

    MPI_Get_count(&st, MPI_BYTE, &count);
    if (!bad && count != (int)bytes) {
      printf("{\"error\":\"short-read\",\"rank\":%d,\"rep\":%d,\"bytes\":%lld,\"read\":%d}\n", rank, k, bytes, count);
      bad = 1;
    }
    if (!bad && memcmp(in, out, n)) {
      size_t i = 0;
      while (in[i] == out[i]) i++;
      printf("{\"error\":\"verify\",\"pattern\":\"%s\",\"rank\":%d,\"rep\":%d,\"index\":%zu,\"expected\":%u,\"got\":%u}\n", pattern, rank, k, i, out[i], in[i]);
      bad = 1;
    }
    fflush(stdout);
    int anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    bad = anybad;
    if (bad) break;

    double mine[3] = {t_w - t0, t_ws - t0, t_r - t2}, worst[3];
    MPI_Reduce(mine, worst, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      double total = (double)size * (double)bytes, tick = MPI_Wtick();
      for (int j = 0; j < 3; j++) if (worst[j] < tick) worst[j] = tick; /* never divide by 0 */
      printf("{\"pattern\":\"%s\",\"ranks\":%d,\"bytesPerRank\":%lld,\"collective\":%s,\"rep\":%d,\"write_s\":%.9f,\"write_sync_s\":%.9f,\"read_s\":%.9f,\"write_MBps\":%.3f,\"read_MBps\":%.3f}\n",
             pattern, size, bytes, coll ? "true" : "false", k, worst[0], worst[1], worst[2], total / worst[0] / 1e6, total / worst[2] / 1e6);
      fflush(stdout);
    }
  }
  if (tile) MPI_Type_free(&filetype);
  free(out);
  free(in);
  MPI_Finalize();
  return bad ? 3 : 0;
}
