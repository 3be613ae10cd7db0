#include "CBlueZ.h"
int CBlueZ_placeholder(void) { return 0; }
