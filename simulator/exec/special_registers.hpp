// PTX special registers that are constant for a thread during a launch: each
// frame gets a slot for each, filled when the frame is made.
#pragma once

#include <cstdint>
#include <string>

namespace cudajit::sim {

enum SpecialRegister : uint32_t {
  kTidX,
  kTidY,
  kTidZ,
  kNtidX,
  kNtidY,
  kNtidZ,
  kCtaidX,
  kCtaidY,
  kCtaidZ,
  kNctaidX,
  kNctaidY,
  kNctaidZ,
  kLaneId,
  kWarpId,
  kNwarpId,
  kSmId,
  kNsmId,
  kGridId,
  kLanemaskEq,
  kLanemaskLe,
  kLanemaskLt,
  kLanemaskGe,
  kLanemaskGt,
  kDynamicSmemSize,
  kTotalSmemSize,
  kCarryFlag,  // the condition code add.cc/sub.cc/mad.cc set and addc/subc/madc read
  kSpecialRegisterCount
};

// The special register `name` names ("%tid.x"), or kSpecialRegisterCount.
uint32_t special_register(const std::string& name);

}  // namespace cudajit::sim
