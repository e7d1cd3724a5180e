/* How the profile's access levels map to Landlock rights: Linux only (the
 * Makefile builds tests/unit/test_linux_*.c on Linux alone). */
#include "profile/profile.h"
#include "sandbox/landlock.h"
#include "tap.h"

static void test_landlock_mapping(void)
{
	uint64_t rw = landlock_rights_for_access(ACCESS_RW);
	CHECK(!(rw & (LL_FS_MAKE_CHAR | LL_FS_MAKE_BLOCK)), "write never grants device creation");
	CHECK(rw & LL_FS_REFER, "write includes REFER so renames work");
	CHECK(!(landlock_rights_for_access(ACCESS_READ) & LL_FS_EXECUTE),
	      "read does not imply exec");
	CHECK(!(landlock_rights_for_access(ACCESS_RX) & LL_FS_WRITE_FILE),
	      "exec does not imply write");
	CHECK(landlock_rights_for_access(ACCESS_ALL) == (rw | LL_FS_EXECUTE),
	      "every writable rule gets the same rights, so renames never fail with EXDEV");
	CHECK(!(landlock_fs_rights_for_abi(1) & LL_FS_REFER), "ABI 1 lacks REFER");
	CHECK(landlock_fs_rights_for_abi(5) & LL_FS_IOCTL_DEV, "ABI 5 handles device ioctls");
	CHECK(!(landlock_fs_rights_for_abi(8) & LL_FS_RESOLVE_UNIX) &&
	          landlock_fs_rights_for_abi(9) & LL_FS_RESOLVE_UNIX,
	      "RESOLVE_UNIX from ABI 9");
	CHECK(!landlock_attr_for_abi(3).handled_access_net &&
	          landlock_attr_for_abi(4).handled_access_net,
	      "TCP ports from ABI 4");
	CHECK(!landlock_attr_for_abi(5).scoped && landlock_attr_for_abi(6).scoped,
	      "signal and abstract-socket scopes from ABI 6");
	CHECK(landlock_attr_for_abi(10).handled_access_fs ==
	          landlock_attr_for_abi(9).handled_access_fs,
	      "a newer ABI than moat knows gets what moat knows");
}

int main(void)
{
	test_landlock_mapping();
	return tap_done();
}
