/* GPU use through NVML, opened with dlopen so that tally builds and runs on
 * machines without NVIDIA's library: without it, no GPU is in use. */
#include "platform/platform.h"

#include <dlfcn.h>

typedef int (*nvml_init_fn)(void);
typedef int (*nvml_count_fn)(unsigned int *);
typedef int (*nvml_handle_fn)(unsigned int, void **);
struct nvml_process_info {
    unsigned int pid;
    unsigned long long used_gpu_memory;
    unsigned int gpu_instance_id, compute_instance_id;
};
typedef int (*nvml_procs_fn)(void *, unsigned int *, struct nvml_process_info *);

static struct {
    int tried, ok;
    nvml_count_fn count;
    nvml_handle_fn handle;
    nvml_procs_fn compute_procs;
} nvml;

static int nvml_open(void)
{
    if (nvml.tried)
        return nvml.ok;
    nvml.tried = 1;
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return 0;
    nvml_init_fn init = (nvml_init_fn)dlsym(lib, "nvmlInit_v2");
    nvml.count = (nvml_count_fn)dlsym(lib, "nvmlDeviceGetCount_v2");
    nvml.handle = (nvml_handle_fn)dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
    nvml.compute_procs = (nvml_procs_fn)dlsym(lib, "nvmlDeviceGetComputeRunningProcesses_v3");
    if (!nvml.compute_procs)
        nvml.compute_procs = (nvml_procs_fn)dlsym(lib, "nvmlDeviceGetComputeRunningProcesses_v2");
    nvml.ok = init && nvml.count && nvml.handle && nvml.compute_procs && init() == 0;
    return nvml.ok;
}

int gpu_count_in_use(const pid_t *pids, size_t count)
{
    if (!count || !nvml_open())
        return 0;
    unsigned int devices = 0;
    if (nvml.count(&devices) != 0)
        return 0;
    int used = 0;
    for (unsigned int d = 0; d < devices; d++) {
        void *dev;
        struct nvml_process_info info[64];
        unsigned int n = 64;
        if (nvml.handle(d, &dev) != 0 || nvml.compute_procs(dev, &n, info) != 0)
            continue;
        int found = 0;
        for (unsigned int i = 0; i < n && !found; i++)
            for (size_t j = 0; j < count && !found; j++)
                found = (pid_t)info[i].pid == pids[j];
        used += found;
    }
    return used;
}
