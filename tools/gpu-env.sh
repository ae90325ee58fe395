#!/bin/bash
# Sourced by the GPU scripts: LD_LIBRARY_PATH for binaries carried to the
# GPU machine. BIN_DIR/lib first (libsimdjson, libmimalloc, which the
# machine may lack), then the toolkit's libraries, then libcublasLt 13 /
# libnccl 2 from PyTorch's wheels when the toolkit has none.
#
# Usage: source tools/gpu-env.sh BIN_DIR
fc_bin=${1:-.gpu-bin}
fc_extra=""
for l in libcublasLt.so.13 libcublas.so.13 libnccl.so.2; do
  if ! ldconfig -p 2>/dev/null | grep -q "$l" && [ ! -e /usr/local/cuda/lib64/$l ]; then
    p=$(find /opt /usr/local/lib /usr/lib/python3* -name "$l" 2>/dev/null | head -1)
    [ -n "$p" ] && fc_extra="${fc_extra:+$fc_extra:}$(dirname "$p")"
  fi
done
export LD_LIBRARY_PATH="$fc_bin/lib:/usr/local/cuda/lib64:/usr/lib/x86_64-linux-gnu${fc_extra:+:$fc_extra}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
unset fc_bin fc_extra
