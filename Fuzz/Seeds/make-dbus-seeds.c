#include <dbus/dbus.h>
#include <stdio.h>
#include <stdlib.h>
static void out(DBusMessage *m, const char *name) {
  char *buf; int len;
  dbus_message_set_serial(m, 7);
  if (!dbus_message_marshal(m, &buf, &len)) exit(1);
  FILE *f = fopen(name, "wb"); fwrite(buf, 1, len, f); fclose(f); dbus_free(buf);
}
int main(void) {
  DBusMessage *m = dbus_message_new_method_call("org.bluez", "/org/bluez/hci0", "org.freedesktop.DBus.Properties", "Get");
  const char *a = "org.bluez.Adapter1", *b = "Powered";
  dbus_message_append_args(m, DBUS_TYPE_STRING, &a, DBUS_TYPE_STRING, &b, DBUS_TYPE_INVALID);
  out(m, "get-property");
  /* InterfacesAdded-like signal: o a{sa{sv}} */
  DBusMessage *s = dbus_message_new_signal("/", "org.freedesktop.DBus.ObjectManager", "InterfacesAdded");
  DBusMessageIter it, d, e, d2, e2, v, arr;
  dbus_message_iter_init_append(s, &it);
  const char *path = "/org/bluez/hci0/dev_11_22_33_44_55_66";
  dbus_message_iter_append_basic(&it, DBUS_TYPE_OBJECT_PATH, &path);
  dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{sa{sv}}", &d);
  dbus_message_iter_open_container(&d, DBUS_TYPE_DICT_ENTRY, NULL, &e);
  const char *iface = "org.bluez.Device1";
  dbus_message_iter_append_basic(&e, DBUS_TYPE_STRING, &iface);
  dbus_message_iter_open_container(&e, DBUS_TYPE_ARRAY, "{sv}", &d2);
  dbus_message_iter_open_container(&d2, DBUS_TYPE_DICT_ENTRY, NULL, &e2);
  const char *k = "RSSI"; dbus_int16_t rssi = -60;
  dbus_message_iter_append_basic(&e2, DBUS_TYPE_STRING, &k);
  dbus_message_iter_open_container(&e2, DBUS_TYPE_VARIANT, "n", &v);
  dbus_message_iter_append_basic(&v, DBUS_TYPE_INT16, &rssi);
  dbus_message_iter_close_container(&e2, &v);
  dbus_message_iter_close_container(&d2, &e2);
  dbus_message_iter_open_container(&d2, DBUS_TYPE_DICT_ENTRY, NULL, &e2);
  const char *k2 = "ServiceData";
  dbus_message_iter_append_basic(&e2, DBUS_TYPE_STRING, &k2);
  dbus_message_iter_open_container(&e2, DBUS_TYPE_VARIANT, "a{sv}", &v);
  DBusMessageIter sd, sde, sv, bytes;
  dbus_message_iter_open_container(&v, DBUS_TYPE_ARRAY, "{sv}", &sd);
  dbus_message_iter_open_container(&sd, DBUS_TYPE_DICT_ENTRY, NULL, &sde);
  const char *uuid = "0000fff9-0000-1000-8000-00805f9b34fb";
  dbus_message_iter_append_basic(&sde, DBUS_TYPE_STRING, &uuid);
  dbus_message_iter_open_container(&sde, DBUS_TYPE_VARIANT, "ay", &sv);
  dbus_message_iter_open_container(&sv, DBUS_TYPE_ARRAY, "y", &bytes);
  unsigned char data[20] = {1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20}; const unsigned char *p = data;
  dbus_message_iter_append_fixed_array(&bytes, DBUS_TYPE_BYTE, &p, 20);
  dbus_message_iter_close_container(&sv, &bytes);
  dbus_message_iter_close_container(&sde, &sv);
  dbus_message_iter_close_container(&sd, &sde);
  dbus_message_iter_close_container(&v, &sd);
  dbus_message_iter_close_container(&e2, &v);
  dbus_message_iter_close_container(&d2, &e2);
  dbus_message_iter_close_container(&e, &d2);
  dbus_message_iter_close_container(&d, &e);
  dbus_message_iter_close_container(&it, &d);
  out(s, "interfaces-added");
  DBusMessage *r = dbus_message_new_method_return(m);
  dbus_bool_t t = 1; dbus_uint32_t u = 42; double x = 1.5; dbus_uint64_t big = 1ull<<40;
  dbus_message_append_args(r, DBUS_TYPE_BOOLEAN, &t, DBUS_TYPE_UINT32, &u, DBUS_TYPE_DOUBLE, &x, DBUS_TYPE_UINT64, &big, DBUS_TYPE_INVALID);
  out(r, "reply-basics");
  return 0;
}
