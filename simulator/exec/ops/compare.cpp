#include "../decode_context.hpp"

namespace cudajit::sim {

void register_compare_ops(OpcodeTable&) {}

}  // namespace cudajit::sim
