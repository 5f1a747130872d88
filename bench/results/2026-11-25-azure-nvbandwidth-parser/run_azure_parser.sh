#!/bin/bash
# Runs azurehpc-health-checks' nvbandwidth check (check_nvBW_gpu_bw in
# customTests/azure_gpu_bandwidth.nhc, with azure_common.nhc beside it in the
# directory $AZURE_NHC_SRC: `git show` them from a fetched copy of the
# repository into a temp dir, never into xferbench) on a recorded nvbandwidth
# text: a fake
# nvbandwidth prints the file, a fake nvidia-smi reports two GPUs with NVLink;
# NHC's reporting functions print what they are given.
# usage: run_azure_parser.sh NVBANDWIDTH_TEXT EXP_H2D_D2H_GBPS EXP_P2P_GBPS
src="${AZURE_NHC_SRC:?set AZURE_NHC_SRC to the directory holding azure_gpu_bandwidth.nhc and azure_common.nhc}"
text=$(readlink -f "$1")
work=$(mktemp -d)
export AZ_NHC_ROOT="$work"
mkdir -p "$work/bin" "$work/fakepath"
printf '#!/bin/sh\ncat "%s"\n' "$text" > "$work/bin/nvbandwidth"
cat > "$work/fakepath/nvidia-smi" <<'SMI'
#!/bin/sh
case "$1" in
  nvlink) echo "GPU 0: NVIDIA H200"; echo "	 Link 0: 26.562 GB/s" ;;
  *) printf 'NVIDIA H200\nNVIDIA H200\n' ;;
esac
SMI
chmod +x "$work/bin/nvbandwidth" "$work/fakepath/nvidia-smi"
export PATH="$work/fakepath:$PATH"
source "$src/azure_gpu_bandwidth.nhc"
dbg() { echo "dbg: $*"; }
die() { echo "die: $*"; }
warning() { echo "warning: $*"; }
pass() { echo "pass: $*"; }
boost_gpu_clock() { return 0; }
remove_clock_boost() { :; }
check_nvBW_gpu_bw "$2" "$3"
trap - EXIT
rm -rf "$work"
