#include "search/evolution_observer.h"

namespace kforge {

EvolutionObserver& quiet_observer() {
  static EvolutionObserver quiet;  // stateless: one instance serves every caller
  return quiet;
}

}  // namespace kforge
