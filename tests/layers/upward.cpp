// Built as part of the cache layer: the session is above it, so this
// include must not be found (tests/layers/CMakeLists.txt expects failure).
#include "session/session.h"
