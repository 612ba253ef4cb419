"""The modelled studies: name -> the module of its recipe (its CONFIGS, claim_values and draw_figures).

Kept apart from ``vsim.experiments.reproduce``, which runs them, so that the command line can
list the studies in its help without importing the simulator; a recipe module is imported only
when its study is run (it draws with matplotlib). A new study is one recipe module and one entry here.
"""

STUDIES = {"voip-vsphere5": "vsim.experiments.voip_vsphere5",
           "netioc-vsphere6": "vsim.experiments.netioc_vsphere6",
           "sip-jvm-gc": "vsim.experiments.sip_jvm_gc",
           "esx35-net": "vsim.experiments.esx35_net",
           "xen-appliances": "vsim.experiments.xen_appliances"}
