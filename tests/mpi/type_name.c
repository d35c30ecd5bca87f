/*
 * type_name.c -- MPI_Type_get_name/MPI_Type_set_name (MPI-3.1 6.8): the
 * predefined types are named as the standard spells them, a derived type
 * starts without a name, names can be set (on predefined types too) and
 * read back, a name longer than MPI_MAX_OBJECT_NAME - 1 is cut. Any
 * number of ranks; rank 0 reports.
 * (MPI_C_FLOAT_COMPLEX is left out: MPI-3.1 gives it the synonym
 * MPI_C_COMPLEX, and either spelling is the standard's.)
 */
#include "type_util.h"

#define T(x) { x, #x }
static const struct {
    MPI_Datatype t;
    const char  *name;
} predefined[] = {
    T(MPI_CHAR),          T(MPI_SIGNED_CHAR),    T(MPI_UNSIGNED_CHAR),      T(MPI_BYTE),
    T(MPI_SHORT),         T(MPI_UNSIGNED_SHORT), T(MPI_INT),                T(MPI_UNSIGNED),
    T(MPI_LONG),          T(MPI_UNSIGNED_LONG),  T(MPI_LONG_LONG_INT),      T(MPI_UNSIGNED_LONG_LONG),
    T(MPI_FLOAT),         T(MPI_DOUBLE),         T(MPI_LONG_DOUBLE),        T(MPI_WCHAR),
    T(MPI_C_BOOL),        T(MPI_INT8_T),         T(MPI_INT16_T),            T(MPI_INT32_T),
    T(MPI_INT64_T),       T(MPI_UINT8_T),        T(MPI_UINT16_T),           T(MPI_UINT32_T),
    T(MPI_UINT64_T),      T(MPI_C_DOUBLE_COMPLEX), T(MPI_C_LONG_DOUBLE_COMPLEX), T(MPI_AINT),
    T(MPI_OFFSET),        T(MPI_COUNT),          T(MPI_FLOAT_INT),          T(MPI_DOUBLE_INT),
    T(MPI_LONG_INT),      T(MPI_2INT),           T(MPI_SHORT_INT),          T(MPI_LONG_DOUBLE_INT),
    T(MPI_PACKED),
};

int main(int argc, char **argv)
{
    char         name[MPI_MAX_OBJECT_NAME], lng[400];
    int          len, rc;
    MPI_Datatype t;

    tu_init(&argc, &argv);
    for (size_t i = 0; i < sizeof predefined / sizeof predefined[0]; i++) {
        len = -1;
        MPI_Type_get_name(predefined[i].t, name, &len);
        printf("%-28s named \"%s\" (%d)\n", predefined[i].name, name, len);
        TU_CHECK(strcmp(name, predefined[i].name) == 0 && len == (int)strlen(name),
                 "%s is named %s", predefined[i].name, name);
    }
    MPI_Type_get_name(MPI_LONG_LONG, name, &len);
    printf("MPI_LONG_LONG (a synonym)    named \"%s\"\n", name);
    TU_CHECK(strcmp(name, "MPI_LONG_LONG_INT") == 0, "MPI_LONG_LONG is named %s", name);

    MPI_Type_vector(2, 1, 2, MPI_INT, &t);
    len = -1;
    name[0] = 'x';
    MPI_Type_get_name(t, name, &len);
    printf("a new derived type: \"%s\" (%d)\n", name, len);
    TU_CHECK(len == 0 && name[0] == '\0', "derived type named %s", name);
    rc = MPI_Type_set_name(t, "column");
    MPI_Type_get_name(t, name, &len);
    printf("after MPI_Type_set_name: \"%s\" (%d)\n", name, len);
    TU_CHECK(rc == MPI_SUCCESS && strcmp(name, "column") == 0 && len == 6, "set_name");
    MPI_Type_set_name(t, "");
    MPI_Type_get_name(t, name, &len);
    TU_CHECK(len == 0 && name[0] == '\0', "empty name");
    memset(lng, 'n', sizeof lng);
    lng[sizeof lng - 1] = '\0';
    MPI_Type_set_name(t, lng);
    MPI_Type_get_name(t, name, &len);
    printf("a 399-character name is cut to MPI_MAX_OBJECT_NAME - 1: %s\n",
           len == MPI_MAX_OBJECT_NAME - 1 && strncmp(name, lng, (size_t)len) == 0 ? "yes"
                                                                                  : "no");
    TU_CHECK(len == MPI_MAX_OBJECT_NAME - 1 && (int)strlen(name) == len, "long name: %d", len);
    MPI_Type_commit(&t);
    MPI_Type_set_name(t, "column");
    MPI_Type_get_name(t, name, &len);
    TU_CHECK(strcmp(name, "column") == 0, "committed type renamed");
    MPI_Type_free(&t);

    rc = MPI_Type_set_name(MPI_DOUBLE, "real");
    MPI_Type_get_name(MPI_DOUBLE, name, &len);
    printf("MPI_DOUBLE renamed: \"%s\"\n", name);
    TU_CHECK(rc == MPI_SUCCESS && strcmp(name, "real") == 0, "renaming MPI_DOUBLE");
    MPI_Type_set_name(MPI_DOUBLE, "MPI_DOUBLE");
    return tu_finish("type_name");
}
