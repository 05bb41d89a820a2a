#include "input_planes.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "connection_planes.h"
#include "contact_planes.h"
#include "territory_planes.h"
#include "threat_planes.h"

namespace spiel_bounded {

void InputPlanes::Write(const float* observation, float* out) const {
  std::fill(out, out + size(), 0.0f);
  std::vector<int> entries(size());
  const int count = Entries(observation, 0, entries.data());
  for (int k = 0; k < count; ++k) out[entries[k]] = 1.0f;
}

std::unique_ptr<InputPlanes> MakeInputPlanes(const open_spiel::Game& game,
                                             const std::string& inputs) {
  if (inputs == "observation") return nullptr;
  if (inputs == "threats") return std::make_unique<ThreatPlanes>(game);
  if (inputs == "connections") return std::make_unique<ConnectionPlanes>(game);
  if (inputs == "territory") return std::make_unique<TerritoryPlanes>(game);
  if (inputs == "contacts") return std::make_unique<ContactPlanes>(game);
  throw std::invalid_argument(
      "value network: unknown inputs '" + inputs +
      "'; accepted: observation, threats, connections, territory, contacts");
}

}  // namespace spiel_bounded
