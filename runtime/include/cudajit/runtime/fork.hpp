// A process forked after cudajit started its devices. The devices' threads (the cpu
// device's stream workers and block pool, the simulated GPU's streams) exist only in the
// parent, and CUDA's driver state cannot be used in a child: a child that went on would
// wait forever for work no thread runs. So every device operation in such a child raises
// DevicesForked instead (Numba's "CUDA initialized before forking"), naming the start
// methods that work.
#pragma once

#include <stdexcept>

namespace cudajit::runtime {

class DevicesForked : public std::runtime_error {
 public:
  DevicesForked();
};

// Called when a device starts (the cpu device, or the CUDA driver's initialisation):
// from then on a forked child is marked (pthread_atfork).
void note_devices_started();
// Whether this process is a child forked after note_devices_started().
bool forked_after_start() noexcept;
// Throws DevicesForked in such a child.
void check_not_forked();

}  // namespace cudajit::runtime
