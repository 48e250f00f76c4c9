// SHA-256 through OpenSSL's EVP interface, and the cache key built on it.
#include <rtcg/error.hpp>
#include <rtcg/hash.hpp>

#include <openssl/evp.h>

namespace rtcg {
namespace {

EVP_MD_CTX* context(void* opaque) { return static_cast<EVP_MD_CTX*>(opaque); }

// OpenSSL 3 looks the algorithm up in its provider tables on every EVP_DigestInit_ex(...,
// EVP_sha256(), ...); fetching it once takes that off the per-key cost, which matters on
// the cache's hit path. Never freed: it lives as long as the process.
const EVP_MD* sha256_algorithm() {
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
  static const EVP_MD* const fetched = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  if (fetched != nullptr) return fetched;
#endif
  return EVP_sha256();
}

void append_length(std::string& out, std::size_t length) {
  auto value = static_cast<std::uint64_t>(length);
  for (int byte = 0; byte < 8; ++byte) {
    out.push_back(static_cast<char>(value & 0xffu));
    value >>= 8;
  }
}

}  // namespace

Sha256::Sha256() : context_(EVP_MD_CTX_new()) {
  if (context_ == nullptr) throw Error("SHA-256: OpenSSL could not allocate a digest context");
  if (EVP_DigestInit_ex(context(context_), sha256_algorithm(), nullptr) != 1) {
    EVP_MD_CTX_free(context(context_));
    throw Error(
        "SHA-256: OpenSSL could not initialise the digest (is the default provider "
        "available? check OPENSSL_CONF)");
  }
}

Sha256::~Sha256() { EVP_MD_CTX_free(context(context_)); }

Sha256& Sha256::update(std::string_view bytes) {
  RTCG_VERIFY(!finished_, "internal error: Sha256::update after finish");
  if (EVP_DigestUpdate(context(context_), bytes.data(), bytes.size()) != 1) {
    throw Error("SHA-256: OpenSSL EVP_DigestUpdate failed");
  }
  return *this;
}

std::array<std::uint8_t, 32> Sha256::finish() {
  RTCG_VERIFY(!finished_, "internal error: Sha256::finish called twice");
  finished_ = true;
  std::array<std::uint8_t, 32> digest{};
  unsigned int size = 0;
  if (EVP_DigestFinal_ex(context(context_), digest.data(), &size) != 1 || size != digest.size()) {
    throw Error("SHA-256: OpenSSL EVP_DigestFinal_ex failed");
  }
  return digest;
}

std::string Sha256::hex(std::string_view bytes) {
  Sha256 sha;
  const auto digest = sha.update(bytes).finish();
  return to_hex(digest.data(), digest.size());
}

std::string to_hex(const std::uint8_t* bytes, std::size_t size) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out(2 * size, '\0');
  for (std::size_t i = 0; i < size; ++i) {
    out[2 * i] = digits[bytes[i] >> 4];
    out[2 * i + 1] = digits[bytes[i] & 0x0f];
  }
  return out;
}

CacheKey& CacheKey::add(std::string_view label, std::string_view value) {
  fields_.push_back(KeyField{std::string(label), std::string(value)});
  return *this;
}

std::string CacheKey::digest() const {
  Sha256 sha;
  std::string length;
  for (const auto& field : fields_) {
    // Each length goes in front of its bytes, so field boundaries are part of what is hashed:
    // ("ab", "c") and ("a", "bc") give different digests.
    length.clear();
    append_length(length, field.label.size());
    sha.update(length).update(field.label);
    length.clear();
    append_length(length, field.value.size());
    sha.update(length).update(field.value);
  }
  const auto bytes = sha.finish();
  return to_hex(bytes.data(), bytes.size());
}

}  // namespace rtcg
