#include "../decode_context.hpp"

namespace cudajit::sim {

void register_warp_ops(OpcodeTable&) {}

}  // namespace cudajit::sim
