// libFuzzer target for the framework check's output (parse/framework_answer.h): any bytes as the
// child's stdout and stderr (split at the first NUL byte when there is one, else the same bytes for
// both), through the answer parser, the stage reader and the output cutter; the stdout half also through
// parse::child_reply (the reply line of gpuready's own children), which must return an object or nothing.
// Invariants, not just "no crash": the output fits its cap, and every text the parser keeps is valid
// UTF-8 (nlohmann's dump() throws on invalid UTF-8: that would be a parser bug, so it is not caught).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/snapshot.h"
#include "parse/child_reply.h"
#include "parse/framework_answer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpuready;
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const size_t nul = in.find('\0');
  const std::string_view out = nul == std::string_view::npos ? in : in.substr(0, nul);
  const std::string_view err = nul == std::string_view::npos ? in : in.substr(nul + 1);

  if (const auto reply = parse::child_reply(out, 16); reply && !reply->is_object()) std::abort();

  FrameworkCheck c;
  const auto a = parse::parse_framework_answer(out, c);
  if (!a && (c.version.why() != "not collected" || !c.devices.empty())) std::abort();  // nullopt leaves it alone

  nlohmann::json texts = nlohmann::json::array();
  texts.push_back(parse::last_check_stage(err));
  if (texts.back().get_ref<const std::string&>().size() > 64) std::abort();
  if (a) texts.push_back(a->error_stage);
  for (const size_t cap : {size_t{10}, size_t{200}, size_t{4096}}) {
    texts.push_back(parse::framework_output(out, err, cap));
    if (texts.back().get_ref<const std::string&>().size() > cap) std::abort();
  }
  c.output = parse::framework_output(out, err, size_t{1} << 20);
  if (c.output.size() > (size_t{1} << 20)) std::abort();

  (void)texts.dump();
  nlohmann::json j = c;
  (void)j.dump();
  return 0;
}
