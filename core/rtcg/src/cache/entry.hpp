// The on-disk format of one cache entry. Version 1, integers little-endian:
//
//   offset  size  field
//        0     8  magic "RTDGCACH"
//        8     4  format version (kEntryFormatVersion)
//       12     4  header size in bytes (kEntryHeaderSize)
//       16     8  payload size in bytes
//       24    32  SHA-256 of the cache key (the digest the file is named after)
//       56    32  SHA-256 of the payload
//       88     -  payload
//
// The payload checksum turns truncation and bit flips into misses; the key digest catches an
// entry copied or renamed under another key's name.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace rtcg::cache_detail {

inline constexpr std::uint32_t kEntryFormatVersion = 1;
inline constexpr std::size_t kEntryHeaderSize = 88;

std::string encode_entry_header(std::string_view key_digest_hex, std::string_view payload);

struct EntryHeaderCheck {
  enum class Verdict { valid, other_version, corrupt } verdict = Verdict::corrupt;
  std::string problem;  // what is wrong, for the log
  std::uint64_t payload_size = 0;
  std::array<std::uint8_t, 32> payload_sha256{};
};

// Checks the header of a file of `file_size` bytes named after `key_digest_hex`; `header`
// holds its first kEntryHeaderSize bytes (or all of it when shorter).
EntryHeaderCheck check_entry_header(std::string_view header, std::uint64_t file_size,
                                    std::string_view key_digest_hex);

// True for a lowercase hex SHA-256 (64 characters), the only names entries have.
bool is_digest(std::string_view text);

}  // namespace rtcg::cache_detail
