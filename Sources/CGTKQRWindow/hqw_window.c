// The QR window in GTK 4: title, heading, the QR code as a GdkMemoryTexture (pixels made in
// memory by the Swift side, never a file), a state line and a Cancel button; Escape cancels too.
//
// Focus: the window appears without asking for the keyboard focus, like a notification, so that
// typing into a password prompt elsewhere never lands here. On X11 it is mapped with
// _NET_WM_USER_TIME 0 (EWMH: "the window should not be initially focused") through
// gtk_widget_set_visible instead of gtk_window_present (which asks the window manager to
// activate it); on Wayland a new window without an xdg-activation token is not focused by the
// compositor either. Escape therefore works once the person clicks into the window; the Cancel
// button works with the pointer alone.
#include "hqw_window.h"

#include <gtk/gtk.h>
#include <string.h>
#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#endif

struct hqw_window {
    GtkWidget *window;
    GtkWidget *picture;
    GtkWidget *state;
    GtkWidget *cancel;
    hqw_cancel_fn on_cancel;
    void *context;
    bool cancelled;
    bool closing;
};

bool hqw_gtk_init(void) { return gtk_init_check(); }

void hqw_gtk_run(void) {
    GMainLoop *loop = g_main_loop_new(NULL, FALSE);
    g_main_loop_run(loop);
}

typedef struct {
    void (*fn)(void *);
    void *context;
} hqw_call;

static gboolean hqw_call_run(gpointer data) {
    hqw_call *call = data;
    call->fn(call->context);
    g_free(call);
    return G_SOURCE_REMOVE;
}

void hqw_invoke(void (*fn)(void *), void *context) {
    hqw_call *call = g_new(hqw_call, 1);
    call->fn = fn;
    call->context = context;
    g_main_context_invoke(NULL, hqw_call_run, call);
}

static void hqw_cancel(hqw_window *self) {
    if (self->cancelled || self->closing) return;
    self->cancelled = true;
    gtk_widget_set_sensitive(self->cancel, FALSE);
    gtk_label_set_text(GTK_LABEL(self->state), "Cancelling…");
    self->on_cancel(self->context);
}

static void hqw_cancel_clicked(GtkButton *button, gpointer data) {
    (void)button;
    hqw_cancel(data);
}

static gboolean hqw_key_pressed(GtkEventControllerKey *controller, guint keyval, guint keycode,
                                GdkModifierType state, gpointer data) {
    (void)controller, (void)keycode, (void)state;
    if (keyval != GDK_KEY_Escape) return FALSE;
    hqw_cancel(data);
    return TRUE;
}

// The window manager's close button cancels; the ceremony's end then closes the window.
static gboolean hqw_close_request(GtkWindow *window, gpointer data) {
    (void)window;
    hqw_window *self = data;
    if (self->closing) return FALSE;
    hqw_cancel(self);
    return TRUE;
}

hqw_window *hqw_window_new(const char *title, const char *heading, const char *hint_text, const uint8_t *rgb,
                           int side, const char *state, hqw_cancel_fn on_cancel, void *context) {
    hqw_window *self = g_new0(hqw_window, 1);
    self->on_cancel = on_cancel;
    self->context = context;

    self->window = gtk_window_new();
    g_object_ref_sink(self->window);
    gtk_window_set_title(GTK_WINDOW(self->window), title);
    gtk_window_set_resizable(GTK_WINDOW(self->window), FALSE);
    g_signal_connect(self->window, "close-request", G_CALLBACK(hqw_close_request), self);

    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
    gtk_widget_set_margin_top(box, 18);
    gtk_widget_set_margin_bottom(box, 18);
    gtk_widget_set_margin_start(box, 18);
    gtk_widget_set_margin_end(box, 18);

    GtkWidget *label = gtk_label_new(NULL);
    char *markup = g_markup_printf_escaped("<span size='x-large' weight='bold'>%s</span>", heading);
    gtk_label_set_markup(GTK_LABEL(label), markup);
    g_free(markup);
    gtk_label_set_wrap(GTK_LABEL(label), TRUE);
    gtk_box_append(GTK_BOX(box), label);

    GtkWidget *hint = gtk_label_new(hint_text);
    gtk_box_append(GTK_BOX(box), hint);

    GBytes *bytes = g_bytes_new(rgb, (gsize)side * (gsize)side * 3);
    GdkTexture *texture = gdk_memory_texture_new(side, side, GDK_MEMORY_R8G8B8, bytes, (gsize)side * 3);
    g_bytes_unref(bytes);
    self->picture = gtk_picture_new_for_paintable(GDK_PAINTABLE(texture));
    g_object_unref(texture);
    gtk_picture_set_can_shrink(GTK_PICTURE(self->picture), FALSE);
    gtk_widget_set_size_request(self->picture, side, side);
    gtk_widget_set_halign(self->picture, GTK_ALIGN_CENTER);
    gtk_box_append(GTK_BOX(box), self->picture);

    self->state = gtk_label_new(state);
    gtk_label_set_wrap(GTK_LABEL(self->state), TRUE);
    gtk_label_set_max_width_chars(GTK_LABEL(self->state), 40);
    // Spare height goes here, so that the Cancel button always sits in the bottom-right corner.
    gtk_widget_set_vexpand(self->state, TRUE);
    gtk_box_append(GTK_BOX(box), self->state);

    self->cancel = gtk_button_new_with_mnemonic("_Cancel");
    gtk_widget_set_halign(self->cancel, GTK_ALIGN_END);
    g_signal_connect(self->cancel, "clicked", G_CALLBACK(hqw_cancel_clicked), self);
    gtk_box_append(GTK_BOX(box), self->cancel);

    GtkEventController *keys = gtk_event_controller_key_new();
    g_signal_connect(keys, "key-pressed", G_CALLBACK(hqw_key_pressed), self);
    gtk_widget_add_controller(self->window, keys);

    gtk_window_set_child(GTK_WINDOW(self->window), box);
    gtk_widget_realize(self->window);
#ifdef GDK_WINDOWING_X11
    GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(self->window));
    if (GDK_IS_X11_SURFACE(surface)) gdk_x11_surface_set_user_time(surface, 0);
#endif
    gtk_widget_set_visible(self->window, TRUE);
    return self;
}

void hqw_window_set_state(hqw_window *self, const char *state, bool hide_qr) {
    if (self->closing) return;
    gtk_label_set_text(GTK_LABEL(self->state), state);
    if (hide_qr) gtk_widget_set_visible(self->picture, FALSE);
}

static gboolean hqw_destroy(gpointer data) {
    hqw_window *self = data;
    gtk_window_destroy(GTK_WINDOW(self->window));
    g_object_unref(self->window);
    g_free(self);
    return G_SOURCE_REMOVE;
}

void hqw_window_close(hqw_window *self, unsigned delay_ms) {
    if (self->closing) return;
    self->closing = true;
    gtk_widget_set_sensitive(self->cancel, FALSE);
    if (delay_ms == 0) {
        hqw_destroy(self);
    } else {
        g_timeout_add(delay_ms, hqw_destroy, self);
    }
}
