// vprintf, the function CUDA's printf calls: `vprintf(format, buffer)` with
// the arguments laid out in `buffer`, each aligned to its size (doubles for
// floats, 8-byte pointers for %s). Each lane's line is formatted here and kept
// with the launch; the executor writes a launch's lines to stdout when it ends,
// as the driver empties the device's printf buffer at the host's next
// synchronisation.
#include "printf.hpp"

#include <cstring>

#include "memory_access.hpp"

namespace cudajit::sim {

namespace {

constexpr size_t kMaxString = 4096;  // longer format or %s strings are refused

class LaneFormatter {
 public:
  LaneFormatter(Warp& warp, const Inst& inst, int lane) : warp_(warp), inst_(inst), lane_(lane) {}

  std::string string_at(uint64_t address) {
    std::string text;
    for (;; ++address) {
      char c = char(*generic_address(warp_, inst_, lane_, address, 1));
      if (c == '\0') return text;
      if (text.size() == kMaxString)
        warp_.fault(Fault::IllegalAddress, inst_, lane_,
                    "printf: a string longer than " + std::to_string(kMaxString) + " bytes");
      text += c;
    }
  }

  template <class T>
  T argument(uint64_t buffer, uint64_t& offset) {
    offset = (offset + sizeof(T) - 1) / sizeof(T) * sizeof(T);
    if (buffer == 0)
      warp_.fault(Fault::IllegalAddress, inst_, lane_, "printf: more conversions than arguments");
    T value;
    std::memcpy(&value, generic_address(warp_, inst_, lane_, buffer + offset, sizeof(T)),
                sizeof(T));
    offset += sizeof(T);
    return value;
  }

  // The line, and the number of arguments it read (vprintf's result).
  std::pair<std::string, int> format(uint64_t format_address, uint64_t buffer) {
    const std::string format = string_at(format_address);
    std::string out;
    uint64_t offset = 0;
    int count = 0;
    for (size_t i = 0; i < format.size(); ++i) {
      if (format[i] != '%') {
        out += format[i];
        continue;
      }
      size_t start = i++;
      while (i < format.size() && std::strchr("-+ #0123456789.", format[i])) ++i;
      std::string length;
      while (i < format.size() && std::strchr("hlLjzt", format[i])) length += format[i++];
      if (i >= format.size()) break;
      char conversion = format[i];
      if (conversion == '%') {
        out += '%';
        continue;
      }
      std::string spec = format.substr(start, i - start - length.size());  // flags, width
      char text[512];
      if (std::strchr("diouxXc", conversion)) {
        bool wide = length.find('l') != std::string::npos || length == "j" || length == "z" ||
                    length == "t";
        long long value =
            wide ? argument<int64_t>(buffer, offset) : argument<int32_t>(buffer, offset);
        if (!wide && std::strchr("ouxX", conversion)) value = (long long)uint32_t(value);
        std::snprintf(text, sizeof text, (spec + "ll" + conversion).c_str(), value);
      } else if (std::strchr("fFeEgGaA", conversion)) {
        std::snprintf(text, sizeof text, (spec + conversion).c_str(),
                      argument<double>(buffer, offset));
      } else if (conversion == 's') {
        std::string s = string_at(argument<uint64_t>(buffer, offset));
        std::snprintf(text, sizeof text, (spec + 's').c_str(), s.c_str());
      } else if (conversion == 'p') {
        std::snprintf(text, sizeof text, "0x%llx",
                      (unsigned long long)argument<uint64_t>(buffer, offset));
      } else {
        warp_.fault(Fault::IllegalInstruction, inst_, lane_,
                    std::string("printf: unknown conversion '%") + conversion + "'");
      }
      out += text;
      ++count;
    }
    return {out, count};
  }

 private:
  Warp& warp_;
  const Inst& inst_;
  int lane_;
};

}  // namespace

void run_vprintf(Warp& warp, const Inst& inst, const CallSite& site, uint32_t mask) {
  if (site.arguments.size() != 2 || site.arguments[0].size != 8 || site.arguments[1].size != 8)
    warp.fault(Fault::IllegalInstruction, inst, __builtin_ctz(mask),
               "vprintf takes two 64-bit pointers (the format and the argument buffer)");
  Frame& caller = warp.frames.back();
  const uint64_t stride = caller.function->param_bytes;
  // vprintf has no frame: its arguments are read where the caller put them.
  auto argument = [&](const ParamCopy& copy, int lane) {
    if (copy.from_place == ParamCopy::kConstant) return copy.from;
    if (copy.from_place == ParamCopy::kRegister)
      return caller.regs[size_t(copy.from) * kWarpSize + size_t(lane)];
    uint64_t value;
    std::memcpy(&value, caller.params.data() + lane * stride + copy.from, 8);
    return value;
  };
  for (int lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1u)) continue;
    uint64_t format = argument(site.arguments[0], lane), buffer = argument(site.arguments[1], lane);
    auto [line, count] = LaneFormatter(warp, inst, lane).format(format, buffer);
    {
      std::lock_guard lock(warp.launch->printf->mutex);
      warp.launch->printf->text += line;
    }
    for (const ParamCopy& result : site.results) {
      int32_t value = count;
      if (result.to_place == ParamCopy::kRegister)
        caller.regs[size_t(result.to) * kWarpSize + size_t(lane)] = uint32_t(value);
      else
        std::memcpy(caller.params.data() + lane * stride + result.to, &value,
                    std::min<uint64_t>(result.size, 4));
    }
  }
}

}  // namespace cudajit::sim
