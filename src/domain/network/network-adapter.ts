// The port to the mobile network as the service commands it: outbound only. What the network
// reports back (profile installs, attachments, data use) enters through the inbound use cases of
// this folder, whatever its source, so an operator's real integration implements this interface
// for commands and calls those use cases for events. The simulated network
// (src/network/simulated-network.ts) is the default adapter; the simulator's event source
// (src/network/simulated-events.ts) plays the events.

export interface SmsDelivery {
  readonly id: string;
  readonly iccid: string;
  readonly msisdn: string;
  readonly from: string;
  readonly message: string;
  readonly createdAt: string;
}

export interface NetworkAdapter {
  /** Delivers an SMS to the eSIM's MSISDN. */
  deliverSms(input: {
    iccid: string;
    organisationId: string;
    msisdn: string;
    from: string;
    message: string;
  }): Promise<SmsDelivery>;
  /**
   * Allocates a phone number for the eSIM in the country (E.164 digits starting with its calling
   * code). The service checks it is free and records it (domain/network/msisdn.ts).
   */
  allocateMsisdn(input: {
    readonly iccid: string;
    readonly country: string;
    readonly callingCode: string;
  }): Promise<string>;
  /**
   * Cancels the eSIM's location, so the device registers again (a refresh). The new registration
   * is an inbound event: the network reports it through the use case `recordSeen`
   * (domain/network/attach.ts).
   */
  refreshRegistration(input: { readonly iccid: string }): Promise<void>;
}
