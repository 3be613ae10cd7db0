// The QR window in GTK 4, behind a small C interface that Swift calls (HybridQRWindow).
// Threading: hqw_gtk_init and hqw_gtk_run run on the one GTK thread; every hqw_window_* call
// must run there too, through hqw_invoke (thread-safe, g_idle_add on GTK's main context).
#ifndef HQW_WINDOW_H
#define HQW_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

typedef struct hqw_window hqw_window;

/// Called once when the person cancels (Cancel button, Escape, or closing the window).
typedef void (*hqw_cancel_fn)(void *context);

/// gtk_init_check: false when no display can be opened (then never call anything else).
bool hqw_gtk_init(void);
/// Runs GTK's main loop on the calling thread; never returns.
void hqw_gtk_run(void);
/// Runs fn(context) on the GTK thread, from any thread.
void hqw_invoke(void (*fn)(void *context), void *context);

/// Opens the window: `title` (names the RP ID), `heading` (what is asked), `hint` (what to do with
/// the code), the QR code as `side` x `side` RGB pixels (3 bytes each, quiet zone included;
/// copied), and the first state. Shown without taking the keyboard focus (see hqw_window.c).
hqw_window *hqw_window_new(const char *title, const char *heading, const char *hint, const uint8_t *rgb,
                           int side, const char *state, hqw_cancel_fn on_cancel, void *context);
/// Shows `state` under the QR code; `hide_qr` removes the code (it can no longer be used).
void hqw_window_set_state(hqw_window *window, const char *state, bool hide_qr);
/// Closes the window after `delay_ms` (0: now) and frees it; the handle is invalid afterwards.
/// The cancel callback is never called after this.
void hqw_window_close(hqw_window *window, unsigned delay_ms);

#endif
