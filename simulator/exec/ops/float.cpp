#include "../decode_context.hpp"

namespace cudajit::sim {

void register_float_ops(OpcodeTable&) {}

}  // namespace cudajit::sim
