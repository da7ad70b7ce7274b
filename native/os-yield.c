/*
 * os_yield: sched_yield(2) for waiting ranks (src/runtime/os-yield.ts).
 *
 * JavaScript has no way to give the core to another runnable thread except
 * sleeping (Atomics.wait), and a futex sleep plus wake-up costs 10-100 us on a
 * loaded or oversubscribed machine. Open MPI's and MPICH's shared-memory waits
 * poll and call sched_yield() between polls when ranks outnumber the cores; this
 * addon lets ours do the same. Node-API, context-aware (loads in worker threads).
 */
#include <node_api.h>
#include <sched.h>

static napi_value Yield(napi_env env, napi_callback_info info) {
  (void)env;
  (void)info;
  sched_yield();
  return NULL;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "osYield", NAPI_AUTO_LENGTH, Yield, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "osYield", fn) != napi_ok) return NULL;
  return exports;
}
