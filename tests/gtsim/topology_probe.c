/* SPDX-License-Identifier: MIT */
/* Prints what a Level Zero program sees of the device tree, one line per
 * device, so the topology test can compare it with GTSIM_CONFIG:
 *   device <i> sub <j|-> id 0x.... slices S subslices SS eus E threads T
 *          total N flags [sub] pci dddd:bb:dd.f */
#include <stdio.h>
#include <string.h>

#include <ze_api.h>

static void show(ze_device_handle_t d, int i, int sub)
{
    ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    ze_pci_ext_properties_t pci = {.stype = ZE_STRUCTURE_TYPE_PCI_EXT_PROPERTIES};
    char where[32] = "-";
    if (zeDeviceGetProperties(d, &p) != ZE_RESULT_SUCCESS) {
        printf("device %d properties failed\n", i);
        return;
    }
    if (sub >= 0)
        snprintf(where, sizeof(where), "%d", sub);
    zeDevicePciGetPropertiesExt(d, &pci);
    printf("device %d sub %s id 0x%04x vendor 0x%04x slices %u subslices %u eus %u threads %u "
           "total %u subflag %d subid %u pci %04x:%02x:%02x.%x\n",
           i, where, p.deviceId, p.vendorId, p.numSlices, p.numSubslicesPerSlice,
           p.numEUsPerSubslice, p.numThreadsPerEU,
           p.numSlices * p.numSubslicesPerSlice * p.numEUsPerSubslice * p.numThreadsPerEU,
           (p.flags & ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE) ? 1 : 0, p.subdeviceId, pci.address.domain,
           pci.address.bus, pci.address.device, pci.address.function);
}

int main(void)
{
    ze_driver_handle_t drv;
    ze_device_handle_t devs[16], subs[16];
    uint32_t n = 1, nd = 16;
    ze_result_t r = zeInit(0);
    if (r != ZE_RESULT_SUCCESS) {
        printf("zeInit failed 0x%x\n", (unsigned)r);
        return 1;
    }
    if (zeDriverGet(&n, &drv) != ZE_RESULT_SUCCESS || zeDeviceGet(drv, &nd, devs))
        return 1;
    printf("devices %u\n", nd);
    for (uint32_t i = 0; i < nd; i++) {
        uint32_t ns = 16;
        show(devs[i], (int)i, -1);
        if (zeDeviceGetSubDevices(devs[i], &ns, subs) != ZE_RESULT_SUCCESS)
            return 1;
        for (uint32_t j = 0; j < ns; j++)
            show(subs[j], (int)i, (int)j);
    }
    return 0;
}
