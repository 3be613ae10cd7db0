// GTK 4 (pkg-config gtk4), for the C QR window in CGTKQRWindow; Swift never imports it directly.
#include <gtk/gtk.h>
