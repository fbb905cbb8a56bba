// decompressed_tail (see decompress.h).
#include "parse/decompress.h"

#include <vector>

#if GPUREADY_HAVE_ZSTD
#include <zstd.h>
#endif
#if GPUREADY_HAVE_LZMA
#include <lzma.h>
#endif
#if GPUREADY_HAVE_ZLIB
#include <zlib.h>
#endif

namespace gpuready::parse {
namespace {

// Keeps the last `n` bytes of everything appended, and counts the total.
class Tail {
 public:
  explicit Tail(size_t n) : n_(n) {}
  void add(const char* p, size_t len) {
    total_ += len;
    if (len >= n_) {
      buf_.assign(p + len - n_, n_);
      return;
    }
    buf_.append(p, len);
    if (buf_.size() > n_) buf_.erase(0, buf_.size() - n_);
  }
  size_t total() const { return total_; }
  std::string take() { return std::move(buf_); }

 private:
  size_t n_;
  size_t total_ = 0;
  std::string buf_;
};

std::optional<std::string> fail(std::string* error, std::string why) {
  if (error) *error = std::move(why);
  return std::nullopt;
}

}  // namespace

bool can_decompress(std::string_view format) {
#if GPUREADY_HAVE_ZSTD
  if (format == "zst") return true;
#endif
#if GPUREADY_HAVE_LZMA
  if (format == "xz") return true;
#endif
#if GPUREADY_HAVE_ZLIB
  if (format == "gz") return true;
#endif
  (void)format;
  return false;
}

std::optional<std::string> decompressed_tail(std::string_view data, std::string_view format, size_t tail_bytes,
                                             size_t max_output, std::string* error) {
  Tail tail(tail_bytes);
  std::vector<char> out(1 << 16);
  const std::string too_big = "decompresses to more than " + std::to_string(max_output) + " bytes";
#if GPUREADY_HAVE_ZSTD
  if (format == "zst") {
    ZSTD_DStream* z = ZSTD_createDStream();
    if (!z) return fail(error, "zstd: out of memory");
    ZSTD_initDStream(z);
    ZSTD_inBuffer in{data.data(), data.size(), 0};
    size_t last = 1;
    for (;;) {
      ZSTD_outBuffer o{out.data(), out.size(), 0};
      last = ZSTD_decompressStream(z, &o, &in);
      if (ZSTD_isError(last)) {
        const std::string why = std::string("zstd: ") + ZSTD_getErrorName(last);
        ZSTD_freeDStream(z);
        return fail(error, why);
      }
      tail.add(out.data(), o.pos);
      if (tail.total() > max_output) {
        ZSTD_freeDStream(z);
        return fail(error, too_big);
      }
      // Done when a frame ended with the input; stuck (cut short) when no input is left and no
      // output came. A frame that ends before the input does is followed by another (concatenated).
      if (last == 0 && in.pos == in.size) break;
      if (in.pos == in.size && o.pos == 0) break;
    }
    ZSTD_freeDStream(z);
    if (last != 0) return fail(error, "zstd: the data is cut short");
    return tail.take();
  }
#endif
#if GPUREADY_HAVE_LZMA
  if (format == "xz") {
    lzma_stream s = LZMA_STREAM_INIT;
    if (lzma_stream_decoder(&s, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) return fail(error, "xz: cannot start the decoder");
    s.next_in = reinterpret_cast<const uint8_t*>(data.data());
    s.avail_in = data.size();
    lzma_ret ret = LZMA_OK;
    while (ret == LZMA_OK) {
      s.next_out = reinterpret_cast<uint8_t*>(out.data());
      s.avail_out = out.size();
      ret = lzma_code(&s, LZMA_FINISH);
      tail.add(out.data(), out.size() - s.avail_out);
      if (tail.total() > max_output) {
        lzma_end(&s);
        return fail(error, too_big);
      }
    }
    lzma_end(&s);
    if (ret != LZMA_STREAM_END)
      return fail(error, ret == LZMA_BUF_ERROR ? "xz: the data is cut short"
                                               : "xz: not xz data or corrupt (lzma error " + std::to_string(ret) + ")");
    return tail.take();
  }
#endif
#if GPUREADY_HAVE_ZLIB
  if (format == "gz") {
    z_stream s{};
    if (inflateInit2(&s, 15 + 32) != Z_OK) return fail(error, "gzip: cannot start the decoder");  // gzip or zlib header
    s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    s.avail_in = static_cast<uInt>(std::min<size_t>(data.size(), UINT32_MAX));
    int ret = Z_OK;
    while (ret == Z_OK) {
      s.next_out = reinterpret_cast<Bytef*>(out.data());
      s.avail_out = static_cast<uInt>(out.size());
      ret = inflate(&s, Z_NO_FLUSH);
      tail.add(out.data(), out.size() - s.avail_out);
      if (tail.total() > max_output) {
        inflateEnd(&s);
        return fail(error, too_big);
      }
      if (ret == Z_BUF_ERROR && s.avail_in == 0) break;
    }
    inflateEnd(&s);
    if (ret != Z_STREAM_END)
      return fail(error, ret == Z_BUF_ERROR ? "gzip: the data is cut short"
                                            : "gzip: not gzip data or corrupt (zlib error " + std::to_string(ret) + ")");
    return tail.take();
  }
#endif
  (void)data;
  (void)max_output;
  return fail(error, "this gpuready cannot decompress ." + std::string(format) + " files");
}

std::optional<std::string> decompressed(std::string_view data, std::string_view format, size_t max_output,
                                        std::string* error) {
  return decompressed_tail(data, format, max_output, max_output, error);
}

}  // namespace gpuready::parse
