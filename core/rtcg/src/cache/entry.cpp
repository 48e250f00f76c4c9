#include "cache/entry.hpp"

#include <rtcg/hash.hpp>

#include <algorithm>
#include <cstring>

namespace rtcg::cache_detail {
namespace {

constexpr std::string_view kMagic = "RTDGCACH";

void put_le(std::string& out, std::size_t offset, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) {
    out[offset + static_cast<std::size_t>(i)] = static_cast<char>(value & 0xffu);
    value >>= 8;
  }
}

std::uint64_t get_le(std::string_view in, std::size_t offset, int bytes) {
  std::uint64_t value = 0;
  for (int i = bytes - 1; i >= 0; --i) {
    value = (value << 8) | static_cast<unsigned char>(in[offset + static_cast<std::size_t>(i)]);
  }
  return value;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

std::array<std::uint8_t, 32> digest_bytes(std::string_view hex) {
  std::array<std::uint8_t, 32> bytes{};
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = static_cast<std::uint8_t>(hex_value(hex[2 * i]) * 16 + hex_value(hex[2 * i + 1]));
  }
  return bytes;
}

}  // namespace

bool is_digest(std::string_view text) {
  return text.size() == 64 &&
         std::all_of(text.begin(), text.end(), [](char c) { return hex_value(c) >= 0; });
}

std::string encode_entry_header(std::string_view key_digest_hex, std::string_view payload) {
  std::string header(kEntryHeaderSize, '\0');
  std::memcpy(header.data(), kMagic.data(), kMagic.size());
  put_le(header, 8, kEntryFormatVersion, 4);
  put_le(header, 12, kEntryHeaderSize, 4);
  put_le(header, 16, payload.size(), 8);
  const auto key = digest_bytes(key_digest_hex);
  std::memcpy(header.data() + 24, key.data(), key.size());
  Sha256 sha;
  const auto payload_sha = sha.update(payload).finish();
  std::memcpy(header.data() + 56, payload_sha.data(), payload_sha.size());
  return header;
}

EntryHeaderCheck check_entry_header(std::string_view header, std::uint64_t file_size,
                                    std::string_view key_digest_hex) {
  using Verdict = EntryHeaderCheck::Verdict;
  EntryHeaderCheck check;
  if (header.size() < kEntryHeaderSize || file_size < kEntryHeaderSize) {
    check.problem = "truncated: " + std::to_string(file_size) + " bytes, less than the " +
                    std::to_string(kEntryHeaderSize) + "-byte header";
    return check;
  }
  if (header.substr(0, kMagic.size()) != kMagic) {
    check.problem = "not an rtdg cache entry (bad magic)";
    return check;
  }
  const auto version = get_le(header, 8, 4);
  if (version != kEntryFormatVersion) {
    // Written by another rtdg version; not damage, so not worth a warning.
    check.verdict = Verdict::other_version;
    check.problem = "format version " + std::to_string(version) + ", this rtdg reads " +
                    std::to_string(kEntryFormatVersion);
    return check;
  }
  if (get_le(header, 12, 4) != kEntryHeaderSize) {
    check.problem = "bad header size " + std::to_string(get_le(header, 12, 4));
    return check;
  }
  check.payload_size = get_le(header, 16, 8);
  if (check.payload_size != file_size - kEntryHeaderSize) {
    check.problem = "truncated or padded: the header announces " +
                    std::to_string(check.payload_size) + " payload bytes, the file holds " +
                    std::to_string(file_size - kEntryHeaderSize);
    return check;
  }
  const auto key = digest_bytes(key_digest_hex);
  if (std::memcmp(header.data() + 24, key.data(), key.size()) != 0) {
    check.problem = "it was written for another key (copied or renamed file)";
    return check;
  }
  std::memcpy(check.payload_sha256.data(), header.data() + 56, check.payload_sha256.size());
  check.verdict = Verdict::valid;
  return check;
}

}  // namespace rtcg::cache_detail
