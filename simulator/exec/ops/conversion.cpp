#include "../decode_context.hpp"

namespace cudajit::sim {

void register_conversion_ops(OpcodeTable&) {}

}  // namespace cudajit::sim
