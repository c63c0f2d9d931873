// Lenient reads of one field of JSON that comes from outside the process (an
// API response, a stored cursor, a doc node): a field that is missing or of
// another type reads as empty, where nlohmann's value() would throw
// json::type_error and a const operator[] would read past the object.
//
// Thread safety: pure function.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace fixgraph {

// The string at `key` of `j`; "" when `j` is not an object, has no `key`, or
// holds another type there.
inline std::string StringOrEmpty(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);  // end() for a value that is not an object
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace fixgraph
