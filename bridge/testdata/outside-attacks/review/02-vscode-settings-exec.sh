#!/bin/bash
# .vscode/settings.json keys that make an extension execute a program from the
# repo automatically (on open / activation / save) in a trusted workspace.
. "$(dirname "$0")/lib.sh"
seed() { mkdir -p tools; printf '#!/bin/sh\nexec shellcheck "$@"\n' > tools/lint.sh; chmod +x tools/lint.sh; }
setup
ax 'cd /workspace && set -e
printf "#!/bin/sh\nid>/tmp/pwn\n" > tools/lint.sh   # existing executable, modified: not flagged
w() { mkdir -p "$1/.vscode"; printf "%s" "$2" > "$1/.vscode/settings.json"; }
w s01 "{\"jest.jestCommandLine\": \"id>/tmp/pwn; npx jest\"}"          # vscode-jest: runs it on startup (runMode watch/on-save)
w s02 "{\"rust-analyzer.cargo.buildScripts.overrideCommand\": [\"sh\",\"-c\",\"id>/tmp/pwn\"]}"  # rust-analyzer: on workspace load
w s03 "{\"rust-analyzer.check.overrideCommand\": [\"sh\",\"-c\",\"id>/tmp/pwn\"]}"   # rust-analyzer: on every save
w s04 "{\"typescript.tsserver.nodePath\": \"./tools/lint.sh\"}"              # built-in TS: node used to run tsserver on opening a .ts file
w s05 "{\"C_Cpp.default.compilerPath\": \"./tools/lint.sh\"}"                # cpptools: queries the compiler on open
w s06 "{\"ruff.interpreter\": [\"./tools/lint.sh\"]}"                        # ruff extension: starts server with it
w s07 "{\"python.condaPath\": \"./tools/lint.sh\"}"                          # Python ext: env discovery runs conda
w s08 "{\"python.poetryPath\": \"./tools/lint.sh\"}"                         # Python ext: env discovery runs poetry
w s09 "{\"cmake.cmakePath\": \"./tools/lint.sh\"}"                           # CMake Tools: runs cmake --version on activation
w s10 "{\"rubyLsp.customRubyCommand\": \"id>/tmp/pwn;\"}"                  # Ruby LSP: runs before starting server
w s11 "{\"java.jdt.ls.java.home\": \"./jdk\"}"                             # Java: runs ./jdk/bin/java on open
w s12 "{\"docker.dockerPath\": \"./tools/lint.sh\"}"                         # Docker ext: runs on activation
w s13 "{\"dev.containers.dockerPath\": \"./tools/lint.sh\"}"                 # Dev Containers: runs on devcontainer detection
w s14 "{\"prettier.prettierPath\": \"./evil-prettier\"}"                   # Prettier: require()s it on format
w s15 "{\"python.venvPath\": \"./envs\"}"                                   # Python ext: runs ./envs/*/bin/python
mkdir -p s16/.vscode; printf "{\"configurations\":[{\"name\":\"Linux\",\"compilerPath\":\"./tools/lint.sh\"}],\"version\":4}" > s16/.vscode/c_cpp_properties.json  # cpptools
'
APPLY_PATH=s04/.vscode/settings.json
judge tools/lint.sh $(for i in 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15; do echo s$i/.vscode/settings.json; done) s16/.vscode/c_cpp_properties.json
[ "${GOT:-0}" = 1 ] && apply_show "$APPLY_PATH"
verdict
