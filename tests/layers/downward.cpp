// Built as part of the cache layer: the layers below it are in sight.
#include "cycle/snapshot.h"
#include "model/objects.h"
