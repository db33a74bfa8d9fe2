"""What BLAS a PyTorch peer runs on, read in its own process (a threadpoolctl equivalent):
the BLAS libraries mapped into it (/proc/self/maps) and, for OpenBLAS, the library's own
answers: openblas_get_corename() (the kernel it picked, e.g. "Zen", "SkylakeX", "Haswell"),
openblas_get_config() and openblas_get_num_threads()."""
import ctypes


def loaded_blas():
    libs = set()
    with open("/proc/self/maps") as f:
        for line in f:
            p = line.split()[-1]
            if "blas" in p or "mkl" in p:
                libs.add(p)
    return sorted(libs)


def openblas_info():
    for path in loaded_blas():
        if "openblas" not in path:
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        info = {"library": path}
        for name, typ in (("openblas_get_corename", ctypes.c_char_p),
                          ("openblas_get_config", ctypes.c_char_p),
                          ("openblas_get_num_threads", ctypes.c_int)):
            fn = getattr(lib, name, None)
            if fn is None:
                continue
            fn.restype = typ
            v = fn()
            info[name.replace("openblas_get_", "")] = v.decode() if isinstance(v, bytes) else v
        return info
    return None
