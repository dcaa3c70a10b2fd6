#!/usr/bin/env python
"""Write the synthetic SPEC5G classification fixture ``fixture/5GSC.csv`` (the sentences are invented for
lm-eval-enterprise; nothing is copied from SPEC5G): columns ``text,label`` (0 = not security related, 1 = security
related, 2 = other: short context-dependent statements like the genuine class 2), 20 sentences per class, shuffled
with ``Random(7)``. The sentence pools are shared with ``tasks/cyber/spec5g_sum/make_fixture.py``.

    .venv/bin/python tasks/cyber/spec5g_cls/make_fixture.py [--out DIR]
"""

import csv
import random
from pathlib import Path

from lm_eval_enterprise.data import generator_main, write_manifest

nfs = ["AMF", "SMF", "UPF", "AUSF", "UDM", "SEAF", "gNB", "UE", "NRF", "PCF"]
sec = [
    "The {a} shall verify the integrity of the received NAS message with the NAS integrity key before processing it.",
    "If the integrity check of the message fails, the {a} shall discard the message and shall not forward it.",
    "The {a} shall not send the SUPI in clear text over the radio interface; the concealed SUCI is used instead.",
    "Ciphering of user plane data between the UE and the {a} is activated with the AS security mode command.",
    "The {a} derives the key KAMF from KSEAF and the ABBA parameter as specified in the key derivation annex.",
    "A replayed authentication request shall be detected by the {a} through the sequence number check.",
    "The {a} shall protect the confidentiality of the subscriber identity against passive eavesdroppers.",
    "Null integrity protection algorithms shall only be used by the {a} for unauthenticated emergency sessions.",
    "The {a} shall reject the registration if the MAC in the authentication vector cannot be verified.",
    "Keys shared between the {a} and the home network shall never leave the secure environment in plain form.",
    "The {a} shall use mutual TLS to authenticate peer network functions over the service based interface.",
    "An attacker able to modify the RRC messages must not be able to downgrade the {a} to a weaker algorithm.",
    "The {a} shall start a new primary authentication when the key set identifier is unknown.",
    "Security context mismatches detected by the {a} lead to a re-keying procedure before any further signalling.",
    "The {a} shall check that the OAuth 2.0 access token presented by the consumer is valid and not expired.",
    "Integrity protected RRC signalling prevents a false base station from injecting commands towards the {a}.",
    "The {a} shall store the anchor key only for the lifetime of the current security context.",
    "The {a} shall verify that the serving network name in the request matches the visited network.",
    "Secure storage of the long-term key K is required at the {a} and in the UICC.",
    "The {a} shall rate limit failed authentication attempts to mitigate brute force attacks.",
]
proc = [  # procedure sentences: spec5g_sum's paragraphs (and formerly 5GSC class 2)
    "Upon reception of the REGISTRATION REQUEST message, the {a} shall start timer T3550 and send a REGISTRATION ACCEPT message.",
    "The {a} initiates the PDU session establishment procedure by sending a PDU SESSION ESTABLISHMENT REQUEST.",
    "After the handover command is received, the {a} detaches from the source cell and synchronises to the target cell.",
    "The {a} shall send a SERVICE REQUEST message when uplink user data is pending in idle mode.",
    "On expiry of timer T3510, the {a} shall abort the registration procedure and enter the state 5GMM-DEREGISTERED.",
    "The {a} forwards the N2 SM information to the gNB in the PDU SESSION RESOURCE SETUP REQUEST.",
    "When the paging message is received, the {a} initiates the service request procedure.",
    "The {a} shall respond with a CONFIGURATION UPDATE COMPLETE message after applying the new parameters.",
    "The deregistration procedure is initiated by the {a} by sending a DEREGISTRATION REQUEST message.",
    "Upon successful completion of the Xn handover, the target gNB sends a PATH SWITCH REQUEST to the {a}.",
    "The {a} selects a UPF for the session based on the DNN, the S-NSSAI and the UE location.",
    "If the network slice is not available, the {a} includes the rejected NSSAI in the REGISTRATION ACCEPT.",
    "The {a} shall release the RRC connection after the inactivity timer expires.",
    "The {a} sends a Nudm_UECM_Registration request to register as the serving function for the UE.",
    "The periodic registration update is triggered in the {a} when timer T3512 expires.",
    "During the mobility registration update, the {a} retrieves the UE context from the old AMF.",
    "The {a} performs a random access procedure to obtain uplink synchronisation with the cell.",
    "The {a} shall acknowledge the downlink NAS transport message with an UPLINK NAS TRANSPORT message.",
    "The {a} modifies the QoS flow by sending an N4 session modification request.",
    "When the UE moves out of the tracking area list, the {a} starts a mobility registration update.",
]
# class 2 has no published definition; the genuine class-2 sentences are mostly short statements that cannot be
# judged without their context (many start with "This"/"It"/"Otherwise"), so the fixture's are of that kind
unclear = [
    "In this case the field is set to zero by the {a}.",
    "This value is provided by the {a}.",
    "Otherwise the element shall be omitted.",
    "The same applies to the second carrier.",
    "It is sent once per period.",
    "This is indicated in the header.",
    "Such a list may be empty.",
    "The remaining bits are spare.",
    "It applies to both directions.",
    "These entries are ordered by priority at the {a}.",
    "This is not required for the first instance.",
    "The result is stored by the {a}.",
    "Otherwise the default applies.",
    "This step is repeated for each entry.",
    "The length is given in octets.",
    "It is then passed to the {a}.",
    "This option is not used here.",
    "The value range is implementation specific.",
    "In that case no response is expected.",
    "This field follows the previous one.",
]
other = [
    "The {a} supports carrier frequencies in both frequency range 1 and frequency range 2.",
    "This clause defines the abbreviations used in the present document for the {a}.",
    "The maximum transmission bandwidth configuration of the {a} depends on the subcarrier spacing.",
    "Table 5.3.2-1 lists the channel bandwidths supported by the {a} for each NR operating band.",
    "The {a} reports its radio capabilities in the UE capability information container.",
    "The present document specifies the stage 2 architecture of the {a} in the 5G system.",
    "The {a} may be deployed as a virtualised network function in a cloud environment.",
    "Reference signal received power is measured by the {a} on the synchronisation signal blocks.",
    "The numerology of the {a} is defined by the subcarrier spacing and the cyclic prefix.",
    "The {a} provides charging data records to the charging function for offline charging.",
    "For the purpose of the present document, the terms given in TR 21.905 apply to the {a}.",
    "The {a} supports up to eight bandwidth parts per serving cell in the downlink.",
    "The service based interface exposed by the {a} uses HTTP/2 with JSON encoded payloads.",
    "Void.",
    "The {a} can be co-located with other network functions in the same physical node.",
    "The timing advance group of the {a} contains serving cells with the same uplink timing.",
    "The {a} reports the measured channel state information with a configurable periodicity.",
    "Annex B gives examples of deployment scenarios for the {a}.",
    "The spectrum emission mask of the {a} applies at frequencies outside the channel bandwidth.",
    "The {a} uses the physical downlink control channel to carry downlink control information.",
]


def write(out: Path) -> None:
    rng = random.Random(7)
    rows = []
    for lab, pool in ((1, sec), (2, unclear), (0, other)):
        for t in pool:
            rows.append((t.format(a=rng.choice(nfs)), lab))
    rng.shuffle(rows)
    with open(out / "5GSC.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["text", "label"])
        w.writerows(rows)
    write_manifest(
        out,
        "spec5g_cls",
        "Synthetic 5G-specification sentences written for lm-eval-enterprise (not from "
        "the real data), in the schema of SPEC5G 5GSC.csv (text, label 0/1/2). Generated by "
        "tasks/cyber/spec5g_cls/make_fixture.py.",
        {"train": 51, "test": 9},
    )
    print(f"5GSC.csv: {len(rows)} rows")


if __name__ == "__main__":
    generator_main(write)
