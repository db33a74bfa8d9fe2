# The CUDA kernel table (cpp/cuda/*.cu), built when -DATTNLAB_CUDA=ON: sm_90 machine code plus
# compute_90 PTX (JIT-compiled by newer drivers/GPUs), cuBLAS for the GEMMs. The objects go into
# their own static library linked into `attnlab`, which then defines cuda_kernels() from here
# (cpu_table.cpp keeps its null stub for builds without ATTNLAB_WITH_CUDA).
#   cmake -S . -B build/cuda -DATTNLAB_CUDA=ON -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc
if(NOT DEFINED CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
  set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
endif()
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES 90-real 90-virtual)
endif()
enable_language(CUDA)
find_package(CUDAToolkit REQUIRED)

file(GLOB ATTNLAB_CUDA_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cu)
add_library(attnlab_cuda STATIC ${ATTNLAB_CUDA_SOURCES})
set_target_properties(attnlab_cuda PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON
                                              POSITION_INDEPENDENT_CODE ON)
target_include_directories(attnlab_cuda PRIVATE ${CMAKE_SOURCE_DIR}/cpp)
target_compile_options(attnlab_cuda PRIVATE
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --expt-relaxed-constexpr>)
target_link_libraries(attnlab_cuda PUBLIC CUDA::cudart_static CUDA::cublas)

# Only the kernel table's registry needs to know; the rest of the engine compiles exactly as in
# the native Release build (and the CUDA headers stay out of it), so with ccache those objects
# come from the cache (scripts/build.mjs).
set_property(SOURCE ${CMAKE_SOURCE_DIR}/cpp/kernels/cpu_table.cpp APPEND PROPERTY
             COMPILE_DEFINITIONS ATTNLAB_WITH_CUDA)
set_property(TARGET attnlab APPEND PROPERTY INTERFACE_LINK_LIBRARIES "$<LINK_ONLY:attnlab_cuda>")

# NCCL from the CUDA toolkit: the GPU backend of data-parallel training (cpp/parallel/nccl_*).
find_library(ATTNLAB_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR})
find_path(ATTNLAB_NCCL_INCLUDE nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
if(ATTNLAB_NCCL_LIBRARY AND ATTNLAB_NCCL_INCLUDE)
  set_property(SOURCE ${CMAKE_SOURCE_DIR}/cpp/parallel/nccl_communicator.cpp APPEND PROPERTY
               COMPILE_DEFINITIONS ATTNLAB_WITH_NCCL)
  set_property(SOURCE ${CMAKE_SOURCE_DIR}/cpp/parallel/nccl_communicator.cpp APPEND PROPERTY
               INCLUDE_DIRECTORIES ${ATTNLAB_NCCL_INCLUDE})
  target_link_libraries(attnlab PUBLIC ${ATTNLAB_NCCL_LIBRARY})
else()
  message(STATUS "attnlab: NCCL not found in ${CUDAToolkit_LIBRARY_DIR}: no multi-GPU training")
endif()

# Kernel timings at base-model shapes (cpp/bench/cuda/), run by scripts/gpu-check.sh.
add_executable(attnlab_cuda_bench ${CMAKE_SOURCE_DIR}/cpp/bench/cuda/kernels_bench.cpp)
target_link_libraries(attnlab_cuda_bench PRIVATE attnlab)
# Base-model training-step throughput, compared with PyTorch by scripts/gpu-check.sh.
add_executable(attnlab_model_bench ${CMAKE_SOURCE_DIR}/cpp/bench/cuda/model_bench.cpp)
target_link_libraries(attnlab_model_bench PRIVATE attnlab)
