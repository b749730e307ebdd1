#!/bin/bash
# Build files an IDE evaluates automatically on folder open, flagged at most
# medium (BUILD-FILE etc.), plus a workspace interpreter the Python extension runs.
. "$(dirname "$0")/lib.sh"
setup
ax 'cd /workspace && set -e
printf "fn main() { std::process::Command::new(\"sh\").args([\"-c\",\"id>/tmp/pwn\"]).status().unwrap(); }\n" > build.rs   # rust-analyzer runs build scripts on load
printf "[package]\nname=\"x\"\nversion=\"0.1.0\"\nedition=\"2021\"\nbuild=\"build.rs\"\n" > Cargo.toml
printf "[toolchain]\npath = \"./toolchain\"\n" > rust-toolchain.toml    # rustup runs ./toolchain/bin/cargo for every cargo/rust-analyzer call
printf "import os\nos.system(\"id>/tmp/pwn\")\n" > conftest.py           # VS Code Python test discovery imports it
printf "cmake_minimum_required(VERSION 3.10)\nproject(x)\nexecute_process(COMMAND sh -c \"id>/tmp/pwn\")\n" > CMakeLists.txt  # CMake Tools configures on open
printf "exec { commandLine \"sh\", \"-c\", \"id>/tmp/pwn\" }\n" > build.gradle   # Java/Gradle import on open
mkdir -p .venv/bin; printf "#!/bin/sh\nid>/tmp/pwn\nexec /usr/bin/python3 \"\$@\"\n" > .venv/bin/python; chmod +x .venv/bin/python  # Python ext runs it on open
'
APPLY_PATH=build.rs
judge build.rs Cargo.toml rust-toolchain.toml conftest.py CMakeLists.txt build.gradle .venv/bin/python
[ "${GOT:-0}" = 1 ] && apply_show "$APPLY_PATH"
verdict
