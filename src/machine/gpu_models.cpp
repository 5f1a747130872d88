#include "machine/gpu_models.hpp"

#include "base/names.hpp"

namespace xb {

constexpr Named<HostLinkKind> kHostLinkKinds[] = {{HostLinkKind::pcie, "pcie"}, {HostLinkKind::c2c, "nvlink_c2c"}};

const char* to_string(HostLinkKind k) noexcept { return lookup_name(kHostLinkKinds, k, "pcie"); }

namespace {

// NVLink rates per link and direction: NVLink 3 and 4 carry 50 GB/s per
// link both ways together (A100 12 links = 600 GB/s; H100 18 links = 900
// GB/s), NVLink 5 100 GB/s (B200 18 links = 1.8 TB/s), as the datasheets
// below give the totals.
constexpr const char* kA100 =
    "NVIDIA A100 Tensor Core GPU datasheet and NVIDIA A100 Tensor Core GPU Architecture whitepaper, "
    "https://www.nvidia.com/en-us/data-center/a100/";
constexpr const char* kH100 =
    "NVIDIA H100 Tensor Core GPU datasheet, https://www.nvidia.com/en-us/data-center/h100/";
constexpr const char* kH200 =
    "NVIDIA H200 Tensor Core GPU datasheet, https://www.nvidia.com/en-us/data-center/h200/";
constexpr const char* kGH200 =
    "NVIDIA GH200 Grace Hopper Superchip datasheet and NVIDIA Grace Hopper Superchip Architecture whitepaper, "
    "https://www.nvidia.com/en-us/data-center/grace-hopper-superchip/";
constexpr const char* kB200 =
    "NVIDIA HGX B200 / DGX B200 datasheets and NVIDIA Blackwell Architecture Technical Brief, "
    "https://www.nvidia.com/en-us/data-center/hgx/";
constexpr const char* kGB200 =
    "NVIDIA GB200 NVL72 datasheet and NVIDIA Blackwell Architecture Technical Brief, "
    "https://www.nvidia.com/en-us/data-center/gb200-nvl72/";
constexpr const char* kL40S = "NVIDIA L40S datasheet, https://www.nvidia.com/en-us/data-center/l40s/";

}  // namespace

const std::vector<GpuModel>& gpu_models() {
  using H = HostLinkKind;
  // key, CUDA name part, host link, PCIe gen, C2C total, NVLink version, links, GB/s per link
  // and direction, fabric, peer access expected, source. Most specific match first.
  static const std::vector<GpuModel> models = {
      {"gh200", "GH200", H::c2c, 0, 900.0, 4, 18, 25.0, "NVSwitch", true, kGH200},
      {"gb200", "GB200", H::c2c, 0, 900.0, 5, 18, 50.0, "NVSwitch", true, kGB200},
      {"b200", "B200", H::pcie, 6, 0.0, 5, 18, 50.0, "NVSwitch", true, kB200},
      {"h200-nvl", "H200 NVL", H::pcie, 5, 0.0, 4, 18, 25.0, "bridge", true, kH200},
      {"h200-sxm", "H200", H::pcie, 5, 0.0, 4, 18, 25.0, "NVSwitch", true, kH200},
      {"h100-nvl", "H100 NVL", H::pcie, 5, 0.0, 4, 12, 25.0, "bridge", true, kH100},
      {"h100-pcie", "H100 PCIe", H::pcie, 5, 0.0, 4, 12, 25.0, "bridge", true, kH100},
      {"h100-sxm", "H100", H::pcie, 5, 0.0, 4, 18, 25.0, "NVSwitch", true, kH100},
      {"a100-sxm", "A100-SXM", H::pcie, 4, 0.0, 3, 12, 25.0, "NVSwitch", true, kA100},
      {"a100-pcie", "A100", H::pcie, 4, 0.0, 3, 12, 25.0, "bridge", true, kA100},
      // The datasheet names no NVLink and no peer-to-peer support: a missing
      // peer access is reported, not failed, on this kind.
      {"l40s", "L40S", H::pcie, 4, 0.0, 0, 0, 0.0, "none", false, kL40S},
  };
  return models;
}

const GpuModel* find_gpu_model(const std::string& cuda_name) {
  for (const GpuModel& m : gpu_models())
    if (cuda_name.find(m.match) != std::string::npos) return &m;
  return nullptr;
}

}  // namespace xb
