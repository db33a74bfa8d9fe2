// Which GPU a rank of a data-parallel job takes (NcclCommunicator, before its first CUDA call).
// Two launch styles are common: a launcher that gives each rank a GPU of its own by setting
// CUDA_VISIBLE_DEVICES per rank (Slurm's --gpus-per-task, torchrun wrappers), so every rank sees
// one device, numbered 0; and one that shows all of a host's GPUs to all of its ranks, so local
// rank r takes device r. Plain C++ (no CUDA), so any build tests it with made-up device counts.
#pragma once
#include <string>

namespace attnlab {

// The device index (among the `visible` devices this process sees) for local rank `local_rank`
// of `local_size` ranks on this host; cuda_visible_devices is the environment's
// CUDA_VISIBLE_DEVICES (nullptr when unset). When a host shows as many devices as it has ranks,
// rank r takes device r; when it shows fewer and CUDA_VISIBLE_DEVICES is set, the launcher chose
// per rank and the rank takes device 0 (several ranks sharing one GPU then fail in NCCL's
// initialisation with its own message). Throws attnlab::Error when no device is visible, or when
// fewer devices than ranks are visible without CUDA_VISIBLE_DEVICES (two ranks would share a GPU).
int choose_gpu(int local_rank, int local_size, int visible, const char* cuda_visible_devices);

}  // namespace attnlab
