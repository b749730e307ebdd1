#!/bin/bash
# Variant of 12: a well-behaved server (exits on stdin EOF, default signals)
# that started one helper child; nothing of it may outlive stop, rm or the
# bridge's death either.
STUBBORN_MODE=child exec bash "$(dirname "$0")/12-process-leak.sh"
