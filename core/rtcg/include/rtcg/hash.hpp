// SHA-256 (OpenSSL) and the cache key: labelled, length-prefixed fields, so no two different
// field lists can hash alike ("ab"+"c" vs "a"+"bc").
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rtcg {

class Sha256 {
public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  Sha256& update(std::string_view bytes);
  // The object can't be updated (or finished) afterwards: both throw rtcg::Error.
  std::array<std::uint8_t, 32> finish();
  static std::string hex(std::string_view bytes);  // one-shot, lowercase hex digest

private:
  void* context_;  // EVP_MD_CTX*
  bool finished_ = false;
};

std::string to_hex(const std::uint8_t* bytes, std::size_t size);  // lowercase

struct KeyField {
  std::string label;  // "source", "option", "header:rtcg/kernel.h", ...
  std::string value;
};

class CacheKey {
public:
  CacheKey& add(std::string_view label, std::string_view value);
  const std::vector<KeyField>& fields() const noexcept { return fields_; }
  // Hex SHA-256 over (len(label), label, len(value), value) for each field in order,
  // lengths as 8-byte little-endian integers.
  std::string digest() const;

private:
  std::vector<KeyField> fields_;
};

}  // namespace rtcg
