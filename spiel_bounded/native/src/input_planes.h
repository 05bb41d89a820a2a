// Inputs a value network derives from a position's observation and reads after the mover bits
// (`ModelConfig.inputs`): the threat planes of a line game (threat_planes.h), the connections
// of a hex board (connection_planes.h), the territory of an amazons board (territory_planes.h)
// or the contacts and groups of a clobber board (contact_planes.h). Their entries are 0 or 1.
#pragma once

#include <memory>
#include <string>

#include "open_spiel/spiel.h"

namespace spiel_bounded {

class InputPlanes {
 public:
  virtual ~InputPlanes() = default;

  // Entries of the inputs.
  virtual int size() const = 0;
  // The entries that are 1 on `observation` (the game's flat observation, planes first), counted
  // from `first`, into `entries` (room for `size()`); their count.
  virtual int Entries(const float* observation, int first, int* entries) const = 0;

  // The inputs of `observation` into `out[0, size())`.
  void Write(const float* observation, float* out) const;
};

// The inputs `inputs` names on `game`: nullptr for "observation" (none derived), else the planes;
// throws std::invalid_argument for unknown inputs (naming the accepted ones) or a game the
// planes cannot read.
std::unique_ptr<InputPlanes> MakeInputPlanes(const open_spiel::Game& game,
                                             const std::string& inputs);

}  // namespace spiel_bounded
