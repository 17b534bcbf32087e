// Node-API binding of a prepared reference (metric.h Reference):
//   prepareReference(pixels, channels, linear, width, height, blur) → Promise<handle>
//   scaleStatsAgainst(handle, distorted, channels, linear) → Promise<Float64Array> (as scaleStats gives)
//   releaseReference(handle): frees the planes now (or when the scores in flight end)
//   referenceBytes(handle) → bytes its planes hold (0 once released)
//   heldReferences() → how many prepared references hold their planes now (for tests: none after a search)
// The handle is an external tagged as ours. Its planes (~48 bytes per pixel) are freed by
// releaseReference, deterministically; the external's finalizer frees them only if the caller never
// released it (the backstop). Both run on the main thread; a score in flight holds a reference to the
// handle (so no finalizer runs under it) and a count (so a release waits for it): the worker threads only
// read the planes. The planes are reported to V8 as external memory while held.
#include <node_api.h>

#include <cstring>
#include <memory>
#include <vector>

#include "metric.h"
#include "napi_util.h"

namespace ssimulacra2::napi {
namespace {

/** Prepared references holding planes (changed on the main thread only). */
int64_t held = 0;

const napi_type_tag kHandleTag = {0x7c3a1d52e4b94f60ULL, 0x9a2e5b1f03c84d77ULL};

struct Handle {
  std::unique_ptr<Reference> reference;
  int busy = 0;  // scores in flight
  bool released = false;
  int64_t accounted = 0;  // bytes reported to napi_adjust_external_memory
};

void Free(napi_env env, Handle* handle) {
  if (handle->reference) held--;
  handle->reference.reset();
  int64_t total = 0;
  if (handle->accounted != 0) napi_adjust_external_memory(env, -handle->accounted, &total);
  handle->accounted = 0;
}

void Finalize(napi_env env, void* data, void*) {
  auto* handle = static_cast<Handle*>(data);
  Free(env, handle);
  delete handle;
}

/** Our handle behind `value`, or nullptr after throwing (not a handle, or released when `live`). */
Handle* HandleOf(napi_env env, napi_value value, bool live) {
  bool ours = false;
  void* data = nullptr;
  napi_valuetype type;
  if (napi_typeof(env, value, &type) != napi_ok || type != napi_external ||
      napi_check_object_type_tag(env, value, &kHandleTag, &ours) != napi_ok || !ours ||
      napi_get_value_external(env, value, &data) != napi_ok) {
    napi_throw_type_error(env, nullptr, "ssimulacra2 native: not a prepared reference");
    return nullptr;
  }
  auto* handle = static_cast<Handle*>(data);
  if (live && handle->released) {
    napi_throw_error(env, nullptr, "ssimulacra2 native: the prepared reference was released");
    return nullptr;
  }
  return handle;
}

void Reject(napi_env env, napi_deferred deferred) {
  napi_value message = nullptr;
  napi_value error = nullptr;
  napi_create_string_utf8(env, "ssimulacra2 native: the scoring work was cancelled or failed", NAPI_AUTO_LENGTH,
                          &message);
  napi_create_error(env, nullptr, message, &error);
  napi_reject_deferred(env, deferred, error);
}

/** Queues `execute`/`complete` on `data` and returns the promise; false after throwing. */
bool Queue(napi_env env, napi_async_execute_callback execute, napi_async_complete_callback complete, void* data,
           napi_async_work* work, napi_deferred* deferred, napi_value* promise) {
  napi_value name = nullptr;
  return Check(env, napi_create_promise(env, deferred, promise)) &&
         Check(env, napi_create_string_utf8(env, "ssimulacra2", NAPI_AUTO_LENGTH, &name)) &&
         Check(env, napi_create_async_work(env, nullptr, name, execute, complete, data, work)) &&
         Check(env, napi_queue_async_work(env, *work));
}

struct PrepareWork {
  napi_async_work work = nullptr;
  napi_deferred deferred = nullptr;
  napi_ref refs[2] = {};
  Image image{};
  size_t width = 0;
  size_t height = 0;
  BlurConstants blur{};
  std::unique_ptr<Reference> reference;
};

napi_value Prepare(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value args[6];
  if (!Check(env, napi_get_cb_info(env, info, &argc, args, nullptr, nullptr))) return nullptr;
  if (argc != 6) {
    napi_throw_type_error(env, nullptr, "ssimulacra2 native: prepareReference takes 6 arguments");
    return nullptr;
  }
  int64_t width = 0;
  int64_t height = 0;
  if (!Integer(env, args[3], 1, 1 << 20, "width", &width) || !Integer(env, args[4], 1, 1 << 20, "height", &height))
    return nullptr;
  const auto* blur = static_cast<const double*>(
      TypedArray(env, args[5], napi_float64_array, kBlurConstantCount, "blur constants"));
  if (blur == nullptr) return nullptr;
  auto* w = new PrepareWork();
  w->width = static_cast<size_t>(width);
  w->height = static_cast<size_t>(height);
  w->blur = BlurConstantsFrom(blur);
  napi_value promise = nullptr;
  const bool ok = ReadImage(env, args, w->width * w->height, "reference", &w->image, w->refs) &&
                  Queue(
                      env,
                      [](napi_env, void* data) {
                        auto* p = static_cast<PrepareWork*>(data);
                        p->reference.reset(new Reference(p->image, p->width, p->height, p->blur));
                      },
                      [](napi_env env, napi_status status, void* data) {
                        auto* p = static_cast<PrepareWork*>(data);
                        for (napi_ref ref : p->refs) napi_delete_reference(env, ref);
                        auto* handle = new Handle();
                        handle->reference = std::move(p->reference);
                        napi_value external = nullptr;
                        if (status == napi_ok && handle->reference &&
                            napi_create_external(env, handle, Finalize, nullptr, &external) == napi_ok) {
                          napi_type_tag_object(env, external, &kHandleTag);
                          held++;
                          handle->accounted = static_cast<int64_t>(handle->reference->bytes());
                          int64_t total = 0;
                          napi_adjust_external_memory(env, handle->accounted, &total);
                          napi_resolve_deferred(env, p->deferred, external);
                        } else {
                          delete handle;
                          Reject(env, p->deferred);
                        }
                        napi_delete_async_work(env, p->work);
                        delete p;
                      },
                      w, &w->work, &w->deferred, &promise);
  if (!ok) {
    for (napi_ref ref : w->refs)
      if (ref != nullptr) napi_delete_reference(env, ref);
    if (w->work != nullptr) napi_delete_async_work(env, w->work);
    delete w;
    return nullptr;
  }
  return promise;
}

struct ScoreWork {
  napi_async_work work = nullptr;
  napi_deferred deferred = nullptr;
  napi_ref refs[2] = {};
  napi_ref handle_ref = nullptr;
  Handle* handle = nullptr;
  Image distorted{};
  std::vector<double> stats;
};

void ScoreComplete(napi_env env, napi_status status, void* data) {
  auto* w = static_cast<ScoreWork*>(data);
  for (napi_ref ref : w->refs) napi_delete_reference(env, ref);
  if (--w->handle->busy == 0 && w->handle->released) Free(env, w->handle);
  napi_delete_reference(env, w->handle_ref);
  napi_value result = nullptr;
  void* bytes = nullptr;
  napi_value buffer = nullptr;
  const size_t count = w->stats.size();
  if (status == napi_ok && napi_create_arraybuffer(env, count * sizeof(double), &bytes, &buffer) == napi_ok &&
      napi_create_typedarray(env, napi_float64_array, count, buffer, 0, &result) == napi_ok) {
    if (count > 0) std::memcpy(bytes, w->stats.data(), count * sizeof(double));
    napi_resolve_deferred(env, w->deferred, result);
  } else {
    Reject(env, w->deferred);
  }
  napi_delete_async_work(env, w->work);
  delete w;
}

napi_value ScoreAgainst(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value args[4];
  if (!Check(env, napi_get_cb_info(env, info, &argc, args, nullptr, nullptr))) return nullptr;
  if (argc != 4) {
    napi_throw_type_error(env, nullptr, "ssimulacra2 native: scaleStatsAgainst takes 4 arguments");
    return nullptr;
  }
  Handle* handle = HandleOf(env, args[0], true);
  if (handle == nullptr) return nullptr;
  auto* w = new ScoreWork();
  w->handle = handle;
  const size_t pixels = handle->reference->width() * handle->reference->height();
  napi_value promise = nullptr;
  bool ok = ReadImage(env, args + 1, pixels, "distorted", &w->distorted, w->refs) &&
            Check(env, napi_create_reference(env, args[0], 1, &w->handle_ref)) &&
            Queue(
                env,
                [](napi_env, void* data) {
                  auto* s = static_cast<ScoreWork*>(data);
                  s->stats = s->handle->reference->StatsAgainst(s->distorted);
                },
                ScoreComplete, w, &w->work, &w->deferred, &promise);
  if (!ok) {
    for (napi_ref ref : w->refs)
      if (ref != nullptr) napi_delete_reference(env, ref);
    if (w->handle_ref != nullptr) napi_delete_reference(env, w->handle_ref);
    if (w->work != nullptr) napi_delete_async_work(env, w->work);
    delete w;
    return nullptr;
  }
  handle->busy++;
  return promise;
}

napi_value Release(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value arg = nullptr;
  if (!Check(env, napi_get_cb_info(env, info, &argc, &arg, nullptr, nullptr))) return nullptr;
  Handle* handle = argc == 1 ? HandleOf(env, arg, false) : nullptr;
  if (handle == nullptr) {
    if (argc != 1) napi_throw_type_error(env, nullptr, "ssimulacra2 native: releaseReference takes 1 argument");
    return nullptr;
  }
  handle->released = true;
  if (handle->busy == 0) Free(env, handle);
  return nullptr;
}

napi_value Bytes(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value arg = nullptr;
  if (!Check(env, napi_get_cb_info(env, info, &argc, &arg, nullptr, nullptr))) return nullptr;
  Handle* handle = argc == 1 ? HandleOf(env, arg, false) : nullptr;
  if (handle == nullptr) return nullptr;
  napi_value result = nullptr;
  const double bytes = handle->reference ? static_cast<double>(handle->reference->bytes()) : 0;
  Check(env, napi_create_double(env, bytes, &result));
  return result;
}

napi_value Held(napi_env env, napi_callback_info) {
  napi_value result = nullptr;
  Check(env, napi_create_double(env, static_cast<double>(held), &result));
  return result;
}

}  // namespace

bool ExportReference(napi_env env, napi_value exports) {
  return Export(env, exports, "prepareReference", Prepare) &&
         Export(env, exports, "scaleStatsAgainst", ScoreAgainst) &&
         Export(env, exports, "releaseReference", Release) && Export(env, exports, "referenceBytes", Bytes) &&
         Export(env, exports, "heldReferences", Held);
}

}  // namespace ssimulacra2::napi
