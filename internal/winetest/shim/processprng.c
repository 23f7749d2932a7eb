/*
 * bcryptprimitives.dll for wine 8.0: test harness only, never shipped.
 * scripts/wine-exec.sh builds it with x86_64-w64-mingw32-gcc and copies it
 * into a throwaway WINEPREFIX's system32; Windows 10 and 11 ship the real
 * bcryptprimitives.dll and need none of this.
 *
 * 1. ProcessPrng. Go 1.26's Windows runtime reads random bytes with
 *    ProcessPrng from bcryptprimitives.dll (loaded from system32 only, at
 *    start-up) and stops with "fatal error: bcryptprimitives.dll not found"
 *    where it is missing, as in wine 8.0 (Debian 12). This one fills the
 *    buffer with advapi32's SystemFunction036 (RtlGenRandom), which wine has.
 *
 * 2. os.RemoveAll. Go deletes a folder's entries with NtSetInformationFile
 *    class FileDispositionInformationEx (64, Windows 10 1607 and later) and
 *    falls back to the older FileDispositionInformation when Windows answers
 *    STATUS_INVALID_INFO_CLASS. Wine 8.0 answers STATUS_NOT_IMPLEMENTED
 *    instead, which Go reports as "Invalid function", so every t.TempDir
 *    with a file in it fails its test at cleanup. When the program's
 *    GetProcAddress is asked for NtSetInformationFile (Go looks it up
 *    lazily, after this DLL is loaded), it gets a wrapper that answers class
 *    64 the way a Windows older than 1607 does; Go then takes its fallback.
 *    The hook is installed by rewriting the program's own import-table slot
 *    for kernel32's GetProcAddress.
 */
#include <windows.h>
#include <string.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}

#define FILE_DISPOSITION_INFORMATION_EX_CLASS 64
#define STATUS_INVALID_INFO_CLASS_ ((LONG)0xC0000003L)

typedef LONG(NTAPI *setinfo_fn)(HANDLE, PVOID, PVOID, ULONG, ULONG);
typedef FARPROC(WINAPI *getproc_fn)(HMODULE, LPCSTR);

static setinfo_fn real_setinfo;
static getproc_fn real_getproc;

static LONG NTAPI setinfo(HANDLE h, PVOID iosb, PVOID info, ULONG len, ULONG cls)
{
	if (cls == FILE_DISPOSITION_INFORMATION_EX_CLASS)
		return STATUS_INVALID_INFO_CLASS_;
	return real_setinfo(h, iosb, info, len, cls);
}

static FARPROC WINAPI getproc(HMODULE m, LPCSTR name)
{
	FARPROC p = real_getproc(m, name);
	if (p != NULL && HIWORD((ULONG_PTR)name) != 0 && strcmp(name, "NtSetInformationFile") == 0) {
		real_setinfo = (setinfo_fn)p;
		return (FARPROC)setinfo;
	}
	return p;
}

static void hook_getproc(void)
{
	BYTE *base = (BYTE *)GetModuleHandleW(NULL);
	IMAGE_NT_HEADERS *nt = (IMAGE_NT_HEADERS *)(base + ((IMAGE_DOS_HEADER *)base)->e_lfanew);
	IMAGE_DATA_DIRECTORY dir = nt->OptionalHeader.DataDirectory[IMAGE_DIRECTORY_ENTRY_IMPORT];
	IMAGE_IMPORT_DESCRIPTOR *d;

	real_getproc = (getproc_fn)GetProcAddress(GetModuleHandleW(L"kernel32.dll"), "GetProcAddress");
	if (dir.VirtualAddress == 0 || real_getproc == NULL)
		return;
	for (d = (IMAGE_IMPORT_DESCRIPTOR *)(base + dir.VirtualAddress); d->Name != 0; d++) {
		IMAGE_THUNK_DATA *t;
		for (t = (IMAGE_THUNK_DATA *)(base + d->FirstThunk); t->u1.Function != 0; t++) {
			DWORD old;
			if ((FARPROC)t->u1.Function != (FARPROC)real_getproc)
				continue;
			if (VirtualProtect(&t->u1.Function, sizeof t->u1.Function, PAGE_READWRITE, &old)) {
				t->u1.Function = (ULONG_PTR)getproc;
				VirtualProtect(&t->u1.Function, sizeof t->u1.Function, old, &old);
			}
		}
	}
}

BOOL WINAPI DllMain(HINSTANCE dll, DWORD reason, LPVOID reserved)
{
	(void)dll;
	(void)reserved;
	if (reason == DLL_PROCESS_ATTACH)
		hook_getproc();
	return TRUE;
}
