// Node-API binding: scaleStats(reference, referenceChannels, referenceLinear, distorted, distortedChannels,
// distortedLinear, width, height, blurConstants) → Promise<Float64Array>. The work runs in an
// napi_async_work on libuv's thread pool, so the event loop stays free while it scores; the typed arrays
// are held by references until the promise settles, and read (never written) by the worker thread.
// cbrt(Float32Array) → Float32Array exposes the metric's cube root (simd.h), so its accuracy against
// Math.cbrt is tested directly: the scores alone rarely show it. A prepared reference (prepareReference,
// scaleStatsAgainst, releaseReference) is bound in reference_binding.cc.
#include <node_api.h>

#include <cstring>
#include <string>
#include <vector>

#include "metric.h"
#include "napi_util.h"

namespace {

using ssimulacra2::BlurConstants;
using ssimulacra2::napi::Check;
using ssimulacra2::napi::Integer;
using ssimulacra2::napi::ReadImage;
using ssimulacra2::napi::TypedArray;
using ssimulacra2::Image;

struct Work {
  napi_async_work work = nullptr;
  napi_deferred deferred = nullptr;
  napi_ref refs[5] = {};
  Image reference{};
  Image distorted{};
  size_t width = 0;
  size_t height = 0;
  BlurConstants blur{};
  std::vector<double> stats;
};

void Execute(napi_env, void* data) {
  auto* w = static_cast<Work*>(data);
  w->stats = ssimulacra2::ScaleStats(w->reference, w->distorted, w->width, w->height, w->blur);
}

void Complete(napi_env env, napi_status status, void* data) {
  auto* w = static_cast<Work*>(data);
  for (napi_ref ref : w->refs)
    if (ref != nullptr) napi_delete_reference(env, ref);
  napi_value result = nullptr;
  if (status == napi_ok) {
    void* bytes = nullptr;
    napi_value buffer = nullptr;
    const size_t count = w->stats.size();
    if (napi_create_arraybuffer(env, count * sizeof(double), &bytes, &buffer) == napi_ok &&
        napi_create_typedarray(env, napi_float64_array, count, buffer, 0, &result) == napi_ok) {
      if (count > 0) std::memcpy(bytes, w->stats.data(), count * sizeof(double));
      napi_resolve_deferred(env, w->deferred, result);
    } else {
      status = napi_generic_failure;
    }
  }
  if (status != napi_ok) {
    napi_value message = nullptr;
    napi_create_string_utf8(env, "ssimulacra2 native: the scoring work was cancelled or failed", NAPI_AUTO_LENGTH,
                            &message);
    napi_create_error(env, nullptr, message, &result);
    napi_reject_deferred(env, w->deferred, result);
  }
  napi_delete_async_work(env, w->work);
  delete w;
}

napi_value ScaleStats(napi_env env, napi_callback_info info) {
  size_t argc = 9;
  napi_value args[9];
  if (!Check(env, napi_get_cb_info(env, info, &argc, args, nullptr, nullptr))) return nullptr;
  if (argc != 9) {
    napi_throw_type_error(env, nullptr, "ssimulacra2 native: scaleStats takes 9 arguments");
    return nullptr;
  }
  int64_t width = 0;
  int64_t height = 0;
  if (!Integer(env, args[6], 1, 1 << 20, "width", &width) || !Integer(env, args[7], 1, 1 << 20, "height", &height))
    return nullptr;
  const size_t pixels = static_cast<size_t>(width) * static_cast<size_t>(height);
  const auto* blur = static_cast<const double*>(
      TypedArray(env, args[8], napi_float64_array, ssimulacra2::kBlurConstantCount, "blur constants"));
  if (blur == nullptr) return nullptr;
  auto* w = new Work();
  w->width = static_cast<size_t>(width);
  w->height = static_cast<size_t>(height);
  w->blur = ssimulacra2::BlurConstantsFrom(blur);
  napi_value promise = nullptr;
  napi_value name = nullptr;
  bool ok = ReadImage(env, args, pixels, "reference", &w->reference, w->refs) &&
            ReadImage(env, args + 3, pixels, "distorted", &w->distorted, w->refs + 2) &&
            Check(env, napi_create_promise(env, &w->deferred, &promise)) &&
            Check(env, napi_create_string_utf8(env, "ssimulacra2", NAPI_AUTO_LENGTH, &name)) &&
            Check(env, napi_create_async_work(env, nullptr, name, Execute, Complete, w, &w->work)) &&
            Check(env, napi_queue_async_work(env, w->work));
  if (!ok) {
    for (napi_ref ref : w->refs)
      if (ref != nullptr) napi_delete_reference(env, ref);
    if (w->work != nullptr) napi_delete_async_work(env, w->work);
    // A created promise is left pending: the exception thrown above is what the caller sees.
    delete w;
    return nullptr;
  }
  return promise;
}

napi_value Cbrt(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value arg = nullptr;
  if (!Check(env, napi_get_cb_info(env, info, &argc, &arg, nullptr, nullptr))) return nullptr;
  bool is_typed = false;
  napi_typedarray_type type;
  size_t length = 0;
  void* data = nullptr;
  if (argc != 1 || napi_is_typedarray(env, arg, &is_typed) != napi_ok || !is_typed ||
      napi_get_typedarray_info(env, arg, &type, &length, &data, nullptr, nullptr) != napi_ok ||
      type != napi_float32_array) {
    napi_throw_type_error(env, nullptr, "ssimulacra2 native: cbrt takes one Float32Array");
    return nullptr;
  }
  void* out = nullptr;
  napi_value buffer = nullptr;
  napi_value result = nullptr;
  if (!Check(env, napi_create_arraybuffer(env, length * sizeof(float), &out, &buffer)) ||
      !Check(env, napi_create_typedarray(env, napi_float32_array, length, buffer, 0, &result)))
    return nullptr;
  ssimulacra2::CubeRoots(static_cast<const float*>(data), static_cast<float*>(out), length);
  return result;
}

}  // namespace

namespace ssimulacra2::napi {

bool Export(napi_env env, napi_value exports, const char* name, napi_callback callback) {
  napi_value fn = nullptr;
  return Check(env, napi_create_function(env, name, NAPI_AUTO_LENGTH, callback, nullptr, &fn)) &&
         Check(env, napi_set_named_property(env, exports, name, fn));
}

}  // namespace ssimulacra2::napi

namespace {

napi_value Init(napi_env env, napi_value exports) {
  using ssimulacra2::napi::Export;
  if (!Export(env, exports, "scaleStats", ScaleStats) || !Export(env, exports, "cbrt", Cbrt) ||
      !ssimulacra2::napi::ExportReference(env, exports))
    return nullptr;
  return exports;
}

}  // namespace

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
