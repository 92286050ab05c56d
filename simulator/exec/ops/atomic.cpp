#include "../decode_context.hpp"

namespace cudajit::sim {

void register_atomic_ops(OpcodeTable&) {}

}  // namespace cudajit::sim
