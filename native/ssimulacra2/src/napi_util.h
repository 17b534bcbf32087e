// Node-API helpers shared by the addon's bindings (addon.cc, reference_binding.cc).
#pragma once

#include <node_api.h>

#include <cstdint>
#include <string>

#include "metric.h"

namespace ssimulacra2::napi {

inline bool Check(napi_env env, napi_status status) {
  if (status == napi_ok) return true;
  const napi_extended_error_info* info = nullptr;
  napi_get_last_error_info(env, &info);
  bool pending = false;
  napi_is_exception_pending(env, &pending);
  if (!pending) napi_throw_error(env, nullptr, info && info->error_message ? info->error_message : "napi call failed");
  return false;
}

/** The data of a typed array of the expected type and length, or nullptr after throwing a TypeError. */
inline void* TypedArray(napi_env env, napi_value value, napi_typedarray_type want, size_t length, const char* name) {
  bool is_typed = false;
  napi_is_typedarray(env, value, &is_typed);
  napi_typedarray_type type;
  size_t got = 0;
  void* data = nullptr;
  if (is_typed && napi_get_typedarray_info(env, value, &type, &got, &data, nullptr, nullptr) == napi_ok &&
      type == want && got == length)
    return data;
  const std::string message = std::string("ssimulacra2 native: ") + name + " must be a typed array of " +
                              std::to_string(length) + " elements of the expected type";
  napi_throw_type_error(env, nullptr, message.c_str());
  return nullptr;
}

inline bool Integer(napi_env env, napi_value value, int64_t min, int64_t max, const char* name, int64_t* out) {
  double d = 0;
  if (napi_get_value_double(env, value, &d) == napi_ok && d >= static_cast<double>(min) &&
      d <= static_cast<double>(max) && d == static_cast<double>(static_cast<int64_t>(d))) {
    *out = static_cast<int64_t>(d);
    return true;
  }
  const std::string message = std::string("ssimulacra2 native: ") + name + " must be an integer in " +
                              std::to_string(min) + ".." + std::to_string(max);
  napi_throw_range_error(env, nullptr, message.c_str());
  return false;
}

/** Fills one image from (data, channels, linear table) arguments; false after throwing. */
inline bool ReadImage(napi_env env, napi_value* args, size_t pixels, const char* name, ssimulacra2::Image* image, napi_ref* refs) {
  int64_t channels = 0;
  if (!Integer(env, args[1], 3, 4, "channels", &channels)) return false;
  image->channels = static_cast<int>(channels);
  image->data = static_cast<const uint8_t*>(
      TypedArray(env, args[0], napi_uint8_array, pixels * static_cast<size_t>(channels), name));
  if (image->data == nullptr) return false;
  const size_t table = channels == 4 ? 256 * 256 : 256;
  image->linear = static_cast<const float*>(TypedArray(env, args[2], napi_float32_array, table, "linear table"));
  if (image->linear == nullptr) return false;
  return Check(env, napi_create_reference(env, args[0], 1, &refs[0])) &&
         Check(env, napi_create_reference(env, args[2], 1, &refs[1]));
}

/** Sets exports[name] to a function calling `callback`; false after throwing. */
bool Export(napi_env env, napi_value exports, const char* name, napi_callback callback);

/** Exports prepareReference, scaleStatsAgainst and releaseReference (reference_binding.cc). */
bool ExportReference(napi_env env, napi_value exports);

}  // namespace ssimulacra2::napi
