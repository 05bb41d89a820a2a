// The headers that (nearly) every file of the engine includes, compiled once per build into a
// precompiled header that setup.py puts in front of each file (`-include`): parsing
// `open_spiel/spiel.h` (with abseil) costs each file more than its own code. The files still
// include what they use; with a compiler that cannot read the precompiled header, this is an
// ordinary header.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "open_spiel/spiel.h"
