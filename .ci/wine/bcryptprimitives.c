/*
 * bcryptprimitives.dll for Wine 8.0, which lacks it.
 *
 * Go 1.24 and later get random bytes from ProcessPrng in bcryptprimitives.dll, loaded from
 * system32 when a program starts; a Windows test binary run under Wine 8.0 dies before
 * main without it. This DLL exports that one function and fills the buffer with advapi32's
 * RtlGenRandom (exported as SystemFunction036), which Wine has. Built by .ci/wine-test with
 * mingw-w64; nothing outside CI uses it.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
	/* RtlGenRandom takes a 32-bit length: fill a larger buffer in pieces. */
	while (length > 0) {
		ULONG n = length > 0x40000000 ? 0x40000000 : (ULONG)length;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		length -= n;
	}
	return TRUE;
}
