#include "../decode_context.hpp"

namespace cudajit::sim {

void register_integer_ops(OpcodeTable&) {}

}  // namespace cudajit::sim
