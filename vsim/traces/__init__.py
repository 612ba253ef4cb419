"""Trace and capture formats (pcap/pcapng RTP, vsim CSV traces, esxtop, SIPp, steal, tshark tables): readers and writers."""
