#ifndef CBLUEZ_H
#define CBLUEZ_H
/* Placeholder: the BlueZ shim lands with the CBlueZ issue. */
int CBlueZ_placeholder(void);
#endif
