// Binary <-> bytes for the cache. Length-prefixed fields after a magic and a version, so a
// payload from another schema is rejected rather than misread.
#include <rtcg/binary.hpp>
#include <rtcg/error.hpp>

#include <cstdint>
#include <cstring>

namespace rtcg {
namespace {

constexpr char kMagic[8] = {'R', 'T', 'C', 'G', 'B', 'I', 'N', '1'};

void put_u64(std::string& out, std::uint64_t value) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xffu));
}
void put_string(std::string& out, const std::string& value) {
  put_u64(out, value.size());
  out += value;
}

class Reader {
public:
  explicit Reader(const std::string& bytes) : bytes_(bytes) {}
  std::uint64_t u64() {
    need(8);
    std::uint64_t value = 0;
    for (int i = 0; i < 8; ++i)
      value |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes_[position_ + static_cast<std::size_t>(i)])) << (8 * i);
    position_ += 8;
    return value;
  }
  std::string string() {
    const std::uint64_t size = u64();
    need(size);
    std::string value = bytes_.substr(position_, size);
    position_ += size;
    return value;
  }
  void need(std::uint64_t size) const {
    if (size > bytes_.size() - position_) throw Error("malformed compiled binary: truncated payload");
  }
  bool done() const { return position_ == bytes_.size(); }
  void skip(std::size_t n) { need(n); position_ += n; }

private:
  const std::string& bytes_;
  std::size_t position_ = 0;
};

}  // namespace

std::string Binary::serialize() const {
  std::string out(kMagic, sizeof kMagic);
  put_string(out, backend);
  put_string(out, target);
  put_string(out, image);
  put_string(out, log);
  put_u64(out, lowered_names.size());
  for (const auto& [expression, symbol] : lowered_names) {
    put_string(out, expression);
    put_string(out, symbol);
  }
  put_u64(out, signatures.size());
  for (const auto& [symbol, signature] : signatures) {
    put_string(out, symbol);
    put_u64(out, signature.parameters.size());
    for (const auto& parameter : signature.parameters) put_string(out, parameter);
  }
  return out;
}

Binary Binary::deserialize(const std::string& bytes) {
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    throw Error("malformed compiled binary: wrong magic (written by another rtdg version?)");
  Reader in(bytes);
  in.skip(sizeof kMagic);
  Binary binary;
  binary.backend = in.string();
  binary.target = in.string();
  binary.image = in.string();
  binary.log = in.string();
  for (std::uint64_t n = in.u64(), i = 0; i < n; ++i) {
    std::string expression = in.string();
    binary.lowered_names[expression] = in.string();
  }
  for (std::uint64_t n = in.u64(), i = 0; i < n; ++i) {
    std::string symbol = in.string();
    KernelSignature signature;
    for (std::uint64_t m = in.u64(), j = 0; j < m; ++j) signature.parameters.push_back(in.string());
    binary.signatures[symbol] = std::move(signature);
  }
  if (!in.done()) throw Error("malformed compiled binary: trailing bytes");
  return binary;
}

}  // namespace rtcg
