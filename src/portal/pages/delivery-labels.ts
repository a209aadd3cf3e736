// How a callback is named in the portal: its alert type, and for Utilisation the threshold
// passed, so the four Utilisation callbacks of a bundle (1, 50, 80 and 100 %) are told apart.

export function alertLabel(delivery: { alertType: string; threshold?: number }): string {
  return delivery.threshold === undefined
    ? delivery.alertType
    : `${delivery.alertType} ${delivery.threshold} %`;
}
