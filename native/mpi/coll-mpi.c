/*
 * coll_mpi: the node-to-node transport over the system's MPI library
 * (src/transport/mpi/). Built once per MPI flavour (Open MPI's libmpi, MPICH's
 * libmpich: their ABIs differ) by scripts/build-native.mjs; optional.
 *
 * One progress thread makes the transport's MPI calls, MPI_Init_thread included
 * (MULTIPLE is asked for: rank threads call MPI's collectives themselves, below, and
 * MPI_Abort may come from JavaScript). JavaScript posts commands (send a frame,
 * fence, finalize) to a queue and wakes the thread; the thread posts the frames as
 * two nonblocking sends (header on TAG_HDR, payload on TAG_DATA, straight from the
 * caller's memory: no copy, no allocation), probes for incoming headers, receives
 * each payload into a frame buffer reused once JavaScript has copied it out, tests
 * its sends, and tells JavaScript that something happened through a thread-safe
 * function (one call in flight at a time: JavaScript drains everything there is).
 *
 * Waiting: the thread polls while traffic is recent (with sched_yield between polls,
 * for SPIN_US), then sleeps on a condition variable that a new command signals, for
 * IDLE_SLEEP_US at a time (a message from another node is seen at most that late),
 * and for LONG_SLEEP_US once the link has been idle for LONG_IDLE_US. The cores stay
 * with the ranks except while frames move.
 */
#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <node_api.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HDR_MAX 64
#define TAG_HDR 7001
#define TAG_DATA 7002
#define SPIN_US 300
#define IDLE_SLEEP_US 50
#define LONG_IDLE_US 20000
#define LONG_SLEEP_US 1000
#define MAX_SPARE_FRAMES 64

enum { CMD_SEND, CMD_FENCE, CMD_FINALIZE };

typedef struct cmd {
  int kind;
  int peer;
  int id;
  int hlen;
  unsigned char hdr[HDR_MAX];
  const void *data;
  size_t bytes;
  MPI_Request req[2];
  struct cmd *next;
} cmd_t;

typedef struct frame {
  int from;
  int hlen;
  size_t len; /* header + payload */
  size_t cap; /* bytes data can hold: frames are reused (no allocation per message once warm) */
  unsigned char *data;
  struct frame *next;
} frame_t;

typedef struct {
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t wake; /* commands for the progress thread */
  cmd_t *cmds, *cmds_tail;
  frame_t *frames, *frames_tail;
  frame_t *spare; /* delivered frames kept for reuse */
  int spare_count;
  int *done_ids;
  size_t done_len, done_cap;
  /* fence: input blob (borrowed until done), output blobs */
  unsigned char *fence_out;
  int *fence_lens;
  int fence_state; /* 0 none, 1 posted, 2 done */
  int started, init_rc, rank, size, provided, finalized;
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  napi_threadsafe_function tsfn;
  atomic_int notified;
  MPI_Comm comm;
  /* counters */
  double frames_sent, frames_received, bytes_sent, bytes_received, polls, sleeps;
} state_t;

static state_t S;
/* MPI collectives a rank thread has in flight ({ algorithm: 'mpi' }): the progress
   thread then stays out of the library (its polls would contend for the library's
   locks with the rank's MPI_Test) unless it has frames to move. */
static atomic_int rank_calls;

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static void notify_js(void) {
  if (atomic_exchange(&S.notified, 1) == 0) napi_call_threadsafe_function(S.tsfn, NULL, napi_tsfn_nonblocking);
}

static void push_done(int id) {
  if (S.done_len == S.done_cap) {
    size_t cap = S.done_cap ? S.done_cap * 2 : 256;
    int *n = realloc(S.done_ids, cap * sizeof(int));
    if (!n) abort();
    S.done_ids = n;
    S.done_cap = cap;
  }
  S.done_ids[S.done_len++] = id;
}

static void do_fence(cmd_t *c) {
  int len = (int)c->bytes;
  int *lens = malloc(sizeof(int) * (size_t)S.size);
  int *displs = malloc(sizeof(int) * (size_t)S.size);
  MPI_Allgather(&len, 1, MPI_INT, lens, 1, MPI_INT, S.comm);
  int total = 0;
  for (int i = 0; i < S.size; i++) {
    displs[i] = total;
    total += lens[i];
  }
  unsigned char *out = malloc(total > 0 ? (size_t)total : 1);
  MPI_Allgatherv(c->data, len, MPI_BYTE, out, lens, displs, MPI_BYTE, S.comm);
  free(displs);
  pthread_mutex_lock(&S.mu);
  S.fence_out = out;
  S.fence_lens = lens;
  S.fence_state = 2;
  pthread_mutex_unlock(&S.mu);
}

static void *progress(void *arg) {
  (void)arg;
  int provided = 0;
  int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
  pthread_mutex_lock(&S.mu);
  S.init_rc = rc;
  S.provided = provided;
  if (rc == MPI_SUCCESS) {
    MPI_Comm_dup(MPI_COMM_WORLD, &S.comm);
    MPI_Comm_rank(S.comm, &S.rank);
    MPI_Comm_size(S.comm, &S.size);
    int vl = 0;
    MPI_Get_library_version(S.version, &vl);
  }
  S.started = 1;
  pthread_mutex_unlock(&S.mu);
  notify_js();
  if (rc != MPI_SUCCESS) return NULL;

  cmd_t *inflight = NULL; /* sends whose requests are not both complete */
  double last = now_us();
  int finalize = 0;
  for (;;) {
    int active = 0;
    pthread_mutex_lock(&S.mu);
    cmd_t *c = S.cmds;
    S.cmds = S.cmds_tail = NULL;
    pthread_mutex_unlock(&S.mu);
    while (c) {
      cmd_t *next = c->next;
      active = 1;
      if (c->kind == CMD_SEND) {
        MPI_Isend(c->hdr, c->hlen, MPI_BYTE, c->peer, TAG_HDR, S.comm, &c->req[0]);
        MPI_Isend(c->data, (int)c->bytes, MPI_BYTE, c->peer, TAG_DATA, S.comm, &c->req[1]);
        S.frames_sent++;
        S.bytes_sent += (double)c->bytes;
        c->next = inflight;
        inflight = c;
      } else if (c->kind == CMD_FENCE) {
        do_fence(c);
        free(c);
        notify_js();
      } else {
        finalize = 1;
        free(c);
      }
      c = next;
    }
    if (!active && !inflight && atomic_load(&rank_calls) > 0) {
      struct timespec until;
      clock_gettime(CLOCK_REALTIME, &until);
      long ns = until.tv_nsec + IDLE_SLEEP_US * 1000L;
      until.tv_sec += ns / 1000000000L;
      until.tv_nsec = ns % 1000000000L;
      pthread_mutex_lock(&S.mu);
      if (!S.cmds) pthread_cond_timedwait(&S.wake, &S.mu, &until);
      pthread_mutex_unlock(&S.mu);
      continue;
    }
    /* Sends: both requests complete, then the caller's memory is free again. */
    cmd_t **pp = &inflight;
    int completed = 0;
    while (*pp) {
      cmd_t *s = *pp;
      int flag = 0;
      MPI_Status sts[2];
      MPI_Testall(2, s->req, &flag, sts);
      if (flag) {
        *pp = s->next;
        pthread_mutex_lock(&S.mu);
        push_done(s->id);
        pthread_mutex_unlock(&S.mu);
        free(s);
        completed = 1;
      } else {
        pp = &s->next;
      }
    }
    /* Frames from other nodes, in order per sender (MPI's non-overtaking rule). */
    for (;;) {
      int flag = 0;
      MPI_Status st;
      MPI_Iprobe(MPI_ANY_SOURCE, TAG_HDR, S.comm, &flag, &st);
      if (!flag) break;
      int hlen = 0, plen = 0;
      MPI_Get_count(&st, MPI_BYTE, &hlen);
      if (hlen > HDR_MAX) hlen = HDR_MAX;
      unsigned char hdr[HDR_MAX];
      MPI_Recv(hdr, HDR_MAX, MPI_BYTE, st.MPI_SOURCE, TAG_HDR, S.comm, MPI_STATUS_IGNORE);
      MPI_Status ps;
      MPI_Probe(st.MPI_SOURCE, TAG_DATA, S.comm, &ps);
      MPI_Get_count(&ps, MPI_BYTE, &plen);
      size_t need = (size_t)hlen + (size_t)plen;
      pthread_mutex_lock(&S.mu);
      frame_t *f = S.spare;
      if (f) {
        S.spare = f->next;
        S.spare_count--;
      }
      pthread_mutex_unlock(&S.mu);
      if (!f) {
        f = calloc(1, sizeof(frame_t));
        if (!f) abort();
      }
      if (f->cap < need) {
        unsigned char *grown = realloc(f->data, need + 1);
        if (!grown) abort();
        f->data = grown;
        f->cap = need;
      }
      memcpy(f->data, hdr, (size_t)hlen);
      MPI_Recv(f->data + hlen, plen, MPI_BYTE, st.MPI_SOURCE, TAG_DATA, S.comm, MPI_STATUS_IGNORE);
      f->from = st.MPI_SOURCE;
      f->hlen = hlen;
      f->len = need;
      f->next = NULL;
      S.frames_received++;
      S.bytes_received += plen;
      pthread_mutex_lock(&S.mu);
      if (S.frames_tail) S.frames_tail->next = f;
      else S.frames = f;
      S.frames_tail = f;
      pthread_mutex_unlock(&S.mu);
      completed = 1;
    }
    S.polls++;
    if (completed) notify_js();
    if (finalize && !inflight) break;
    double t = now_us();
    if (active || completed || inflight) {
      last = t;
      continue;
    }
    if (t - last < SPIN_US) {
      sched_yield();
      continue;
    }
    /* Idle: sleep until a command arrives or the interval passes. */
    double sleep_us = t - last > LONG_IDLE_US ? LONG_SLEEP_US : IDLE_SLEEP_US;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    long ns = until.tv_nsec + (long)(sleep_us * 1000);
    until.tv_sec += ns / 1000000000L;
    until.tv_nsec = ns % 1000000000L;
    pthread_mutex_lock(&S.mu);
    if (!S.cmds) pthread_cond_timedwait(&S.wake, &S.mu, &until);
    pthread_mutex_unlock(&S.mu);
    S.sleeps++;
  }
  MPI_Comm_free(&S.comm);
  MPI_Finalize();
  pthread_mutex_lock(&S.mu);
  S.finalized = 1;
  pthread_mutex_unlock(&S.mu);
  notify_js();
  return NULL;
}

static void post(cmd_t *c) {
  pthread_mutex_lock(&S.mu);
  c->next = NULL;
  if (S.cmds_tail) S.cmds_tail->next = c;
  else S.cmds = c;
  S.cmds_tail = c;
  pthread_cond_signal(&S.wake);
  pthread_mutex_unlock(&S.mu);
}

/* ---- JavaScript side ---------------------------------------------------- */

#define CHECK(call)                                                             \
  do {                                                                          \
    if ((call) != napi_ok) {                                                    \
      napi_throw_error(env, NULL, "coll_mpi: Node-API call failed: " #call);  \
      return NULL;                                                              \
    }                                                                           \
  } while (0)

static void call_js(napi_env env, napi_value js_cb, void *context, void *data) {
  (void)context;
  (void)data;
  atomic_store(&S.notified, 0);
  if (env == NULL || js_cb == NULL) return;
  napi_value undef;
  napi_get_undefined(env, &undef);
  napi_call_function(env, undef, js_cb, 0, NULL, NULL);
}

static int get_bytes(napi_env env, napi_value v, void **data, size_t *len) {
  napi_typedarray_type type;
  size_t length, offset;
  napi_value ab;
  if (napi_get_typedarray_info(env, v, &type, &length, data, &ab, &offset) != napi_ok) return 0;
  if (type != napi_uint8_array) return 0;
  *len = length;
  return 1;
}

static napi_value set_num(napi_env env, napi_value obj, const char *name, double v) {
  napi_value n;
  napi_create_double(env, v, &n);
  napi_set_named_property(env, obj, name, n);
  return obj;
}

/* init(onEvent): starts the progress thread, which initialises MPI and then calls
   onEvent; info() says when it is done. Returns at once: MPI_Init waits for every
   process of the job, and the caller must stay free to time that out. */
static napi_value Init(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (S.tsfn) {
    napi_throw_error(env, NULL, "coll_mpi: MPI is already initialised in this process");
    return NULL;
  }
  napi_value name;
  CHECK(napi_create_string_utf8(env, "coll_mpi", NAPI_AUTO_LENGTH, &name));
  CHECK(napi_create_threadsafe_function(env, argv[0], NULL, name, 0, 1, NULL, NULL, NULL, call_js, &S.tsfn));
  pthread_mutex_init(&S.mu, NULL);
  pthread_cond_init(&S.wake, NULL);
  if (pthread_create(&S.thread, NULL, progress, NULL) != 0) {
    napi_throw_error(env, NULL, "coll_mpi: cannot start the progress thread");
    return NULL;
  }
  return NULL;
}

/* info(): undefined while MPI_Init_thread runs; then { rank, size, threadLevel, version }; throws if it failed */
static napi_value Info(napi_env env, napi_callback_info info) {
  (void)info;
  pthread_mutex_lock(&S.mu);
  int started = S.started, rc = S.init_rc;
  pthread_mutex_unlock(&S.mu);
  if (!started) return NULL;
  if (rc != MPI_SUCCESS) {
    napi_throw_error(env, NULL, "coll_mpi: MPI_Init_thread failed");
    return NULL;
  }
  napi_value out;
  CHECK(napi_create_object(env, &out));
  set_num(env, out, "rank", S.rank);
  set_num(env, out, "size", S.size);
  set_num(env, out, "threadLevel", S.provided);
  napi_value v;
  CHECK(napi_create_string_utf8(env, S.version, NAPI_AUTO_LENGTH, &v));
  CHECK(napi_set_named_property(env, out, "version", v));
  return out;
}

/* send(peer, header: Uint8Array, payload: Uint8Array, id): the payload must stay alive until id completes */
static napi_value Send(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int32_t peer, id;
  void *hdr, *data;
  size_t hlen, bytes;
  CHECK(napi_get_value_int32(env, argv[0], &peer));
  CHECK(napi_get_value_int32(env, argv[3], &id));
  if (!get_bytes(env, argv[1], &hdr, &hlen) || !get_bytes(env, argv[2], &data, &bytes) || hlen > HDR_MAX || bytes > INT_MAX) {
    napi_throw_type_error(env, NULL, "coll_mpi.send(peer, header, payload, id): header and payload must be Uint8Arrays (header at most 64 bytes, payload below 2 GiB)");
    return NULL;
  }
  cmd_t *c = malloc(sizeof(cmd_t));
  if (!c) abort();
  c->kind = CMD_SEND;
  c->peer = peer;
  c->id = id;
  c->hlen = (int)hlen;
  memcpy(c->hdr, hdr, hlen);
  c->data = data;
  c->bytes = bytes;
  post(c);
  return NULL;
}

/* nextFrame(buf: Uint8Array, meta: Int32Array[2]): 0 none; > 0 frame length copied (meta = from, header bytes); < 0 -(bytes needed) */
static napi_value NextFrame(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  void *buf, *meta;
  size_t cap, mlen;
  napi_typedarray_type type;
  napi_value ab;
  size_t off;
  if (!get_bytes(env, argv[0], &buf, &cap) || napi_get_typedarray_info(env, argv[1], &type, &mlen, &meta, &ab, &off) != napi_ok || type != napi_int32_array || mlen < 2) {
    napi_throw_type_error(env, NULL, "coll_mpi.nextFrame(buf: Uint8Array, meta: Int32Array(2))");
    return NULL;
  }
  double result = 0;
  pthread_mutex_lock(&S.mu);
  frame_t *f = S.frames;
  if (f) {
    if (f->len > cap) result = -(double)f->len;
    else {
      memcpy(buf, f->data, f->len);
      ((int32_t *)meta)[0] = f->from;
      ((int32_t *)meta)[1] = f->hlen;
      result = (double)f->len;
      S.frames = f->next;
      if (!S.frames) S.frames_tail = NULL;
      if (S.spare_count < MAX_SPARE_FRAMES) {
        f->next = S.spare;
        S.spare = f;
        S.spare_count++;
        f = NULL;
      }
    }
  }
  pthread_mutex_unlock(&S.mu);
  if (result > 0 && f) {
    free(f->data);
    free(f);
  }
  napi_value r;
  CHECK(napi_create_double(env, result, &r));
  return r;
}

/* completions(out: Int32Array): number of completed send ids written */
static napi_value Completions(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  napi_typedarray_type type;
  size_t len, off;
  void *data;
  napi_value ab;
  if (napi_get_typedarray_info(env, argv[0], &type, &len, &data, &ab, &off) != napi_ok || type != napi_int32_array) {
    napi_throw_type_error(env, NULL, "coll_mpi.completions(out: Int32Array)");
    return NULL;
  }
  pthread_mutex_lock(&S.mu);
  size_t n = S.done_len < len ? S.done_len : len;
  memcpy(data, S.done_ids, n * sizeof(int));
  memmove(S.done_ids, S.done_ids + n, (S.done_len - n) * sizeof(int));
  S.done_len -= n;
  pthread_mutex_unlock(&S.mu);
  napi_value r;
  CHECK(napi_create_uint32(env, (uint32_t)n, &r));
  return r;
}

/* fenceStart(blob: Uint8Array): every process's blob is gathered (collective); the blob must stay alive until fenceResult() */
static napi_value FenceStart(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  void *data;
  size_t bytes;
  if (!get_bytes(env, argv[0], &data, &bytes) || bytes > INT_MAX) {
    napi_throw_type_error(env, NULL, "coll_mpi.fenceStart(blob: Uint8Array)");
    return NULL;
  }
  pthread_mutex_lock(&S.mu);
  int busy = S.fence_state != 0;
  if (!busy) S.fence_state = 1;
  pthread_mutex_unlock(&S.mu);
  if (busy) {
    napi_throw_error(env, NULL, "coll_mpi: a fence is already in progress");
    return NULL;
  }
  cmd_t *c = calloc(1, sizeof(cmd_t));
  if (!c) abort();
  c->kind = CMD_FENCE;
  c->data = data;
  c->bytes = bytes;
  post(c);
  return NULL;
}

/* fenceResult(): undefined while the fence runs; then an array of Uint8Arrays, one per process */
static napi_value FenceResult(napi_env env, napi_callback_info info) {
  (void)info;
  pthread_mutex_lock(&S.mu);
  int done = S.fence_state == 2;
  unsigned char *out = S.fence_out;
  int *lens = S.fence_lens;
  if (done) {
    S.fence_state = 0;
    S.fence_out = NULL;
    S.fence_lens = NULL;
  }
  pthread_mutex_unlock(&S.mu);
  if (!done) return NULL;
  napi_value arr;
  CHECK(napi_create_array_with_length(env, (size_t)S.size, &arr));
  size_t at = 0;
  for (int i = 0; i < S.size; i++) {
    void *dst;
    napi_value ab, u8;
    CHECK(napi_create_arraybuffer(env, (size_t)lens[i], &dst, &ab));
    if (lens[i] > 0) memcpy(dst, out + at, (size_t)lens[i]);
    at += (size_t)lens[i];
    CHECK(napi_create_typedarray(env, napi_uint8_array, (size_t)lens[i], ab, 0, &u8));
    CHECK(napi_set_element(env, arr, (uint32_t)i, u8));
  }
  free(out);
  free(lens);
  return arr;
}

/* finalize(): sends in flight complete, then MPI_Finalize; finalized() says when */
static napi_value Finalize(napi_env env, napi_callback_info info) {
  (void)env;
  (void)info;
  cmd_t *c = calloc(1, sizeof(cmd_t));
  if (!c) abort();
  c->kind = CMD_FINALIZE;
  post(c);
  return NULL;
}

static napi_value Finalized(napi_env env, napi_callback_info info) {
  (void)info;
  pthread_mutex_lock(&S.mu);
  int f = S.finalized;
  pthread_mutex_unlock(&S.mu);
  if (f && S.tsfn) {
    napi_release_threadsafe_function(S.tsfn, napi_tsfn_release);
    S.tsfn = NULL;
    pthread_join(S.thread, NULL);
  }
  napi_value r;
  CHECK(napi_get_boolean(env, f != 0, &r));
  return r;
}

/* abort(code): MPI_Abort on the world (ends every process of the job); nothing before MPI is initialised */
static napi_value Abort(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int32_t code = 1;
  if (argc > 0) napi_get_value_int32(env, argv[0], &code);
  pthread_mutex_lock(&S.mu);
  int up = S.started && S.init_rc == MPI_SUCCESS && !S.finalized;
  pthread_mutex_unlock(&S.mu);
  if (up) MPI_Abort(MPI_COMM_WORLD, code);
  return NULL;
}

static napi_value Counters(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value out;
  CHECK(napi_create_object(env, &out));
  set_num(env, out, "framesSent", S.frames_sent);
  set_num(env, out, "framesReceived", S.frames_received);
  set_num(env, out, "bytesSent", S.bytes_sent);
  set_num(env, out, "bytesReceived", S.bytes_received);
  set_num(env, out, "polls", S.polls);
  set_num(env, out, "sleeps", S.sleeps);
  return out;
}

/* ---- MPI's own collectives, called from rank threads ({ algorithm: 'mpi' }) ----
   A communicator of ours is mirrored by an MPI communicator over the same processes
   in the same order (MPI_Comm_create_group: collective over its members only); a call
   starts MPI's nonblocking collective and the rank's wait loop tests it, so the
   library's timeouts and progress stay in charge. Tables guarded by one mutex. */

#define MAX_COMMS 4096
#define MAX_REQS 4096
static MPI_Comm comms[MAX_COMMS];
static int comm_used[MAX_COMMS];
static MPI_Request reqs[MAX_REQS];
static int req_used[MAX_REQS];
static pthread_mutex_t table_mu = PTHREAD_MUTEX_INITIALIZER;

static MPI_Datatype mpi_type(int t) {
  switch (t) {
    case 0: return MPI_INT8_T;
    case 1: return MPI_INT16_T;
    case 2: return MPI_INT32_T;
    case 3: return MPI_INT64_T;
    case 4: return MPI_UINT8_T;
    case 5: return MPI_UINT16_T;
    case 6: return MPI_UINT32_T;
    case 7: return MPI_UINT64_T;
    case 8: return MPI_FLOAT;
    case 9: return MPI_DOUBLE;
    default: return MPI_DATATYPE_NULL;
  }
}

static MPI_Op mpi_op(int o) {
  switch (o) {
    case 0: return MPI_SUM;
    case 1: return MPI_PROD;
    case 2: return MPI_MIN;
    case 3: return MPI_MAX;
    case 4: return MPI_LAND;
    case 5: return MPI_LOR;
    case 6: return MPI_LXOR;
    case 7: return MPI_BAND;
    case 8: return MPI_BOR;
    case 9: return MPI_BXOR;
    default: return MPI_OP_NULL;
  }
}

static int take_slot(int *used, int n) {
  pthread_mutex_lock(&table_mu);
  int i = 0;
  while (i < n && used[i]) i++;
  if (i < n) used[i] = 1;
  pthread_mutex_unlock(&table_mu);
  return i < n ? i : -1;
}

/* commCreate(worldRanks: Int32Array, tag): handle of an MPI communicator over those processes, in that order */
static napi_value CommCreate(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  napi_typedarray_type type;
  size_t len, off;
  void *data;
  napi_value ab;
  int32_t tag;
  if (napi_get_typedarray_info(env, argv[0], &type, &len, &data, &ab, &off) != napi_ok || type != napi_int32_array || napi_get_value_int32(env, argv[1], &tag) != napi_ok) {
    napi_throw_type_error(env, NULL, "coll_mpi.commCreate(worldRanks: Int32Array, tag: number)");
    return NULL;
  }
  int h = take_slot(comm_used, MAX_COMMS);
  if (h < 0) {
    napi_throw_error(env, NULL, "coll_mpi: too many MPI communicators (free some communicators)");
    return NULL;
  }
  MPI_Group world, group;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, (int)len, (int *)data, &group);
  int rc = MPI_Comm_create_group(MPI_COMM_WORLD, group, tag, &comms[h]);
  MPI_Group_free(&group);
  MPI_Group_free(&world);
  if (rc != MPI_SUCCESS) {
    comm_used[h] = 0;
    napi_throw_error(env, NULL, "coll_mpi: MPI_Comm_create_group failed");
    return NULL;
  }
  napi_value r;
  CHECK(napi_create_int32(env, h, &r));
  return r;
}

static napi_value CommFree(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int32_t h;
  if (napi_get_value_int32(env, argv[0], &h) != napi_ok || h < 0 || h >= MAX_COMMS || !comm_used[h]) return NULL;
  MPI_Comm_free(&comms[h]);
  pthread_mutex_lock(&table_mu);
  comm_used[h] = 0;
  pthread_mutex_unlock(&table_mu);
  return NULL;
}

/* The arguments of start() and run(): (kind, comm, send, recv, count, type, op, root). */
typedef struct {
  int32_t kind, count, root;
  MPI_Comm comm;
  MPI_Datatype type;
  MPI_Op op;
  void *send, *recv;
} coll_args_t;

static int coll_args(napi_env env, napi_callback_info info, const char *usage, coll_args_t *a) {
  size_t argc = 8;
  napi_value argv[8];
  int32_t h, t, o;
  size_t sl, rl;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 8 || napi_get_value_int32(env, argv[0], &a->kind) != napi_ok ||
      napi_get_value_int32(env, argv[1], &h) != napi_ok || !get_bytes(env, argv[2], &a->send, &sl) || !get_bytes(env, argv[3], &a->recv, &rl) ||
      napi_get_value_int32(env, argv[4], &a->count) != napi_ok || napi_get_value_int32(env, argv[5], &t) != napi_ok || napi_get_value_int32(env, argv[6], &o) != napi_ok ||
      napi_get_value_int32(env, argv[7], &a->root) != napi_ok || h < 0 || h >= MAX_COMMS || !comm_used[h]) {
    napi_throw_type_error(env, NULL, usage);
    return 0;
  }
  a->comm = comms[h];
  a->type = mpi_type(t);
  a->op = mpi_op(o);
  return 1;
}

/* start(kind, comm, send: Uint8Array, recv: Uint8Array, count, type, op, root): request handle.
   kind: 0 barrier, 1 bcast (recv), 2 reduce, 3 allreduce, 4 allgather, 5 reduce_scatter,
   6 gather, 7 scatter, 8 alltoall, 9 scan, 10 exscan; count: elements per rank's block.
   The buffers must stay untouched until test() says done; they must not overlap. */
static napi_value Start(napi_env env, napi_callback_info info) {
  coll_args_t a;
  if (!coll_args(env, info, "coll_mpi.start(kind, comm, send, recv, count, type, op, root)", &a)) return NULL;
  int r = take_slot(req_used, MAX_REQS);
  if (r < 0) {
    napi_throw_error(env, NULL, "coll_mpi: too many MPI collectives in flight");
    return NULL;
  }
  MPI_Comm c = a.comm;
  MPI_Datatype dt = a.type;
  MPI_Op op = a.op;
  void *send = a.send, *recv = a.recv;
  int count = a.count, root = a.root;
  MPI_Request *q = &reqs[r];
  int rc;
  switch (a.kind) {
    case 0: rc = MPI_Ibarrier(c, q); break;
    case 1: rc = MPI_Ibcast(recv, count, dt, root, c, q); break;
    case 2: rc = MPI_Ireduce(send, recv, count, dt, op, root, c, q); break;
    case 3: rc = MPI_Iallreduce(send, recv, count, dt, op, c, q); break;
    case 4: rc = MPI_Iallgather(send, count, dt, recv, count, dt, c, q); break;
    case 5: rc = MPI_Ireduce_scatter_block(send, recv, count, dt, op, c, q); break;
    case 6: rc = MPI_Igather(send, count, dt, recv, count, dt, root, c, q); break;
    case 7: rc = MPI_Iscatter(send, count, dt, recv, count, dt, root, c, q); break;
    case 8: rc = MPI_Ialltoall(send, count, dt, recv, count, dt, c, q); break;
    case 9: rc = MPI_Iscan(send, recv, count, dt, op, c, q); break;
    case 10: rc = MPI_Iexscan(send, recv, count, dt, op, c, q); break;
    default: rc = MPI_ERR_OTHER;
  }
  if (rc != MPI_SUCCESS) {
    pthread_mutex_lock(&table_mu);
    req_used[r] = 0;
    pthread_mutex_unlock(&table_mu);
    napi_throw_error(env, NULL, "coll_mpi: the MPI collective could not start");
    return NULL;
  }
  atomic_fetch_add(&rank_calls, 1);
  napi_value out;
  CHECK(napi_create_int32(env, r, &out));
  return out;
}

/* run(kind, comm, send, recv, count, type, op, root): the blocking collective (MPI's
   tuned algorithms; its nonblocking ones are a separate, slower implementation in both
   MPIs). Arguments as start(). Returns when MPI does: no timeout of ours applies. */
static napi_value Run(napi_env env, napi_callback_info info) {
  coll_args_t a;
  if (!coll_args(env, info, "coll_mpi.run(kind, comm, send, recv, count, type, op, root)", &a)) return NULL;
  MPI_Comm c = a.comm;
  MPI_Datatype dt = a.type;
  MPI_Op op = a.op;
  void *send = a.send, *recv = a.recv;
  int count = a.count, root = a.root;
  int rc;
  atomic_fetch_add(&rank_calls, 1);
  switch (a.kind) {
    case 0: rc = MPI_Barrier(c); break;
    case 1: rc = MPI_Bcast(recv, count, dt, root, c); break;
    case 2: rc = MPI_Reduce(send, recv, count, dt, op, root, c); break;
    case 3: rc = MPI_Allreduce(send, recv, count, dt, op, c); break;
    case 4: rc = MPI_Allgather(send, count, dt, recv, count, dt, c); break;
    case 5: rc = MPI_Reduce_scatter_block(send, recv, count, dt, op, c); break;
    case 6: rc = MPI_Gather(send, count, dt, recv, count, dt, root, c); break;
    case 7: rc = MPI_Scatter(send, count, dt, recv, count, dt, root, c); break;
    case 8: rc = MPI_Alltoall(send, count, dt, recv, count, dt, c); break;
    case 9: rc = MPI_Scan(send, recv, count, dt, op, c); break;
    case 10: rc = MPI_Exscan(send, recv, count, dt, op, c); break;
    default: rc = MPI_ERR_OTHER;
  }
  atomic_fetch_sub(&rank_calls, 1);
  if (rc != MPI_SUCCESS) {
    napi_throw_error(env, NULL, "coll_mpi: the MPI collective failed");
    return NULL;
  }
  return NULL;
}

/* test(request): true once the collective is complete (the handle is then free) */
static napi_value Test(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int32_t r;
  if (napi_get_value_int32(env, argv[0], &r) != napi_ok || r < 0 || r >= MAX_REQS || !req_used[r]) {
    napi_throw_type_error(env, NULL, "coll_mpi.test(request): not a request in flight");
    return NULL;
  }
  int flag = 0;
  MPI_Status st;
  MPI_Test(&reqs[r], &flag, &st);
  if (flag) {
    pthread_mutex_lock(&table_mu);
    req_used[r] = 0;
    pthread_mutex_unlock(&table_mu);
    atomic_fetch_sub(&rank_calls, 1);
  }
  napi_value out;
  CHECK(napi_get_boolean(env, flag != 0, &out));
  return out;
}

NAPI_MODULE_INIT() {
  static const struct {
    const char *name;
    napi_callback fn;
  } fns[] = {
      {"init", Init},
      {"info", Info},
      {"send", Send},
      {"nextFrame", NextFrame},
      {"completions", Completions},
      {"fenceStart", FenceStart},
      {"fenceResult", FenceResult},
      {"finalize", Finalize},
      {"finalized", Finalized},
      {"abort", Abort},
      {"counters", Counters},
      {"commCreate", CommCreate},
      {"commFree", CommFree},
      {"start", Start},
      {"run", Run},
      {"test", Test},
  };
  for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
    napi_value f;
    if (napi_create_function(env, fns[i].name, NAPI_AUTO_LENGTH, fns[i].fn, NULL, &f) != napi_ok) return NULL;
    if (napi_set_named_property(env, exports, fns[i].name, f) != napi_ok) return NULL;
  }
  return exports;
}
